import { describe, expect, it } from 'vitest';
import { createOutbox } from '../../../src/bot/stream/index.js';
import { VirtualClock } from '../../../src/clock.js';
import { RecordingAdapter } from '../../fakes/recording-adapter.js';
import { plain, telegramHtml } from '../../helpers/dialects.js';

function setup() {
  const clock = new VirtualClock();
  const adapter = new RecordingAdapter({
    clock,
    latencyMs: 30,
    capabilities: { maxMessageLength: 200, minEditIntervalMs: 1000, dialect: telegramHtml },
  });
  const outbox = createOutbox({ adapters: [adapter], clock });
  return { clock, adapter, outbox };
}

const buttons = [
  [
    { label: 'Allow', payload: 'a:1' },
    { label: 'Deny', payload: 'd:1', style: 'danger' as const },
  ],
];

describe('outbox one-off calls', () => {
  it('send() splits long text and puts the buttons on the last part', async () => {
    const { clock, adapter, outbox } = setup();
    const text = Array.from({ length: 8 }, (_, i) => `Paragraph ${i} with some words & symbols.`).join(
      '\n\n',
    );
    const sent = outbox.send('test:1', text, { buttons, replyTo: '7' });
    await clock.advance(1000);
    const ids = await sent;
    expect(ids.length).toBeGreaterThan(1);
    const msgs = ids.map((id) => adapter.messages.get(id)!);
    for (const m of msgs) expect(m.text.length).toBeLessThanOrEqual(200);
    expect(msgs.map((m) => m.buttons.length)).toEqual([...ids.slice(1).map(() => 0), 1]);
    expect(msgs.map((m) => m.text).join('\n\n')).toBe(text.replace(/&/g, '&amp;'));
    expect(adapter.ops[0]!.op).toBe('send');
  });

  it('send() with plain: true sends the text unrendered', async () => {
    const { clock, adapter, outbox } = setup();
    const sent = outbox.send('test:1', 'a **b** <c>', { plain: true });
    await clock.advance(100);
    await sent;
    expect(adapter.messages.get('1')).toMatchObject({ text: 'a **b** <c>', format: plain });
  });

  it('edit(): the newest text wins, one call in flight, at the message pace', async () => {
    const { clock, adapter, outbox } = setup();
    const [id] = await (async () => {
      const p = outbox.send('test:1', 'Allow Bash?', { buttons });
      await clock.advance(100);
      return p;
    })();
    const e1 = outbox.edit('test:1', id!, 'Allowed by **ann**', { buttons: [] });
    const e2 = outbox.edit('test:1', id!, 'Allowed by **ann** (once)', { buttons: [] });
    await clock.advance(2000);
    await Promise.all([e1, e2]);
    const edits = adapter.ops.filter((o) => o.op === 'edit');
    expect(edits.map((o) => o.text)).toEqual(['Allowed by <b>ann</b> (once)']);
    expect(edits[0]!.time).toBeGreaterThanOrEqual(1030);
    expect(adapter.messages.get(id!)!.buttons).toEqual([]);
    // Unchanged text is not sent again.
    const same = outbox.edit('test:1', id!, 'Allowed by **ann** (once)', { buttons: [] });
    await clock.advance(2000);
    await same;
    expect(adapter.ops.filter((o) => o.op === 'edit')).toHaveLength(1);
  });

  it('edit() of a message that is gone rejects with NOT_FOUND; delete() of one resolves', async () => {
    const { clock, outbox } = setup();
    const edit = outbox.edit('test:1', '404', 'x');
    const del = outbox.delete('test:1', '404');
    const settled = Promise.allSettled([edit, del]);
    await clock.advance(100);
    const [e, d] = await settled;
    expect(e.status).toBe('rejected');
    expect((e as PromiseRejectedResult).reason.code).toBe('NOT_FOUND');
    expect(d.status).toBe('fulfilled');
  });

  it('a failing send is retried with backoff (1, 2, 4, 8, 8 s: six attempts, as for a reply), then rejects', async () => {
    const { clock, adapter, outbox } = setup();
    adapter.failNext('send', 'PLATFORM_ERROR', { count: 10 });
    const sent = outbox.send('test:1', 'hello');
    const result = sent.catch((err: unknown) => err);
    await clock.advance(30_000);
    expect(await result).toMatchObject({ code: 'PLATFORM_ERROR' });
    expect(adapter.ops.map((o) => o.time)).toEqual([30, 1060, 3090, 7120, 15150, 23180]);
  });

  it('routes by chat key prefix and refuses an unknown platform', async () => {
    const { outbox } = setup();
    await expect(outbox.send('nowhere:1', 'x')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('message order', () => {
  it('creates the messages of one chat one at a time, in the order they were asked for', async () => {
    const clock = new VirtualClock();
    const adapter = new RecordingAdapter({
      clock,
      latencyMs: 200,
      capabilities: { minEditIntervalMs: 1000 },
    });
    const outbox = createOutbox({ adapters: [adapter], clock });
    const reply = outbox.stream('test:1');
    reply.append('the reply');
    const notice = outbox.send('test:1', 'a notice');
    const other = outbox.send('test:2', 'another chat');
    await clock.advance(200);
    // The other chat is not held up; this chat's second message waits for the first.
    expect(adapter.ops.map((o) => [o.time, o.chat, o.text])).toEqual([
      [200, 'test:1', 'the reply'],
      [200, 'test:2', 'another chat'],
    ]);
    await clock.advance(200);
    await Promise.all([notice, other]);
    expect(adapter.chatMessages('test:1').map((m) => m.text)).toEqual(['the reply', 'a notice']);
  });
});
