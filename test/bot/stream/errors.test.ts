import { describe, expect, it } from 'vitest';
import { createOutbox } from '../../../src/bot/stream/index.js';
import { VirtualClock } from '../../../src/clock.js';
import { RecordingAdapter } from '../../fakes/recording-adapter.js';
import { markdown, plain, telegramHtml } from '../../helpers/dialects.js';
import { play, scriptedReply, wordsIn } from './script.js';

function setup(caps: ConstructorParameters<typeof RecordingAdapter>[0]['capabilities'] = {}) {
  const clock = new VirtualClock();
  const adapter = new RecordingAdapter({
    clock,
    capabilities: { maxMessageLength: 1000, minEditIntervalMs: 1000, dialect: markdown, ...caps },
  });
  const outbox = createOutbox({ adapters: [adapter], clock });
  return { clock, adapter, outbox };
}

describe('outbox error handling', () => {
  it('a 429 on an edit pauses the chat for retry_after and then sends only the latest text', async () => {
    const { clock, adapter, outbox } = setup();
    const reply = outbox.stream('test:1');
    reply.append('a ');
    await clock.advance(0);
    adapter.rateLimitNext(5000, { ops: 'edit' });
    reply.append('b');
    await clock.advance(1000);
    expect(adapter.ops.map((o) => [o.time, o.op, o.ok])).toEqual([
      [0, 'send', true],
      [1000, 'edit', false],
    ]);
    for (const w of [' c', ' d', ' e']) {
      reply.append(w);
      await clock.advance(1000);
    }
    // Nothing during the pause (1000..6000), then one edit with the newest text.
    expect(adapter.ops).toHaveLength(2);
    await clock.advance(2000);
    expect(adapter.ops.slice(2).map((o) => [o.time, o.op, o.text])).toEqual([[6000, 'edit', 'a b c d e']]);
    expect(adapter.violations).toEqual([]);
  });

  it('a global 429 pauses every chat of the adapter', async () => {
    const { clock, adapter, outbox } = setup();
    adapter.rateLimitNext(3000, { scope: 'global' });
    const first = outbox.send('test:1', 'one');
    await clock.advance(0);
    const second = outbox.send('test:2', 'two');
    await clock.advance(2999);
    expect(adapter.ops.filter((o) => o.ok)).toEqual([]);
    await clock.advance(1);
    await expect(first).resolves.toEqual(['1']);
    await expect(second).resolves.toEqual(['2']);
  });

  it('when the final edit keeps failing, the final text is sent as a new message', async () => {
    const { clock, adapter, outbox } = setup();
    const reply = outbox.stream('test:1', { liveButtons: [[{ label: 'Stop', payload: 's' }]] });
    reply.append('partial');
    await clock.advance(0);
    adapter.failNextEdits(100);
    reply.append(' and the rest of the answer.');
    const done = reply.finish();
    await clock.advance(30_000);
    const { messageIds } = await done;
    expect(messageIds).toEqual(['2']);
    expect(adapter.messageText('2')).toBe('partial and the rest of the answer.');
    expect(adapter.ops.filter((o) => o.op === 'edit').length).toBe(3);
  });

  it('a filled message that turns out gone is resent, and the reply still finishes whole', async () => {
    const { clock, adapter, outbox } = setup({
      maxMessageLength: 500,
      budget: { count: 10, windowMs: 20_000 },
    });
    // The edit that would remove the Stop button from the first message finds it deleted.
    adapter.failNext('edit', 'NOT_FOUND', {
      match: (c) => c.messageId === '1' && c.message?.buttons?.length === 0,
    });
    const { deltas, text } = scriptedReply({ chars: 2000, durationMs: 30_000 });
    const reply = outbox.stream('test:-1', { liveButtons: [[{ label: 'Stop', payload: 's' }]] });
    await play(clock, reply, deltas);
    const done = reply.finish();
    await clock.advance(120_000);
    const { messageIds } = await done;
    expect(messageIds).not.toContain('1');
    const words = wordsIn(messageIds.map((id) => adapter.messageText(id)!));
    expect([...words].sort()).toEqual(text.match(/w\d{5}/g));
    expect(adapter.violations).toEqual([]);
  });

  it('an edited message that is gone (NOT_FOUND) is resent as a new message', async () => {
    const { clock, adapter, outbox } = setup();
    const reply = outbox.stream('test:1');
    reply.append('first ');
    await clock.advance(0);
    adapter.failNext('edit', 'NOT_FOUND');
    reply.append('second');
    const done = reply.finish();
    await clock.advance(2000);
    await expect(done).resolves.toMatchObject({ messageIds: ['2'] });
    expect(adapter.messageText('2')).toBe('first second');
  });

  it('FORMAT_REJECTED resends the same content as plain text', async () => {
    const { clock, adapter, outbox } = setup({ dialect: telegramHtml });
    adapter.rejectFormat(/<b>/);
    const sent = outbox.send('test:1', 'Use **bold** <here>');
    await clock.advance(0);
    await expect(sent).resolves.toEqual(['1']);
    expect(adapter.messages.get('1')).toMatchObject({ text: 'Use bold <here>', format: plain });

    const reply = outbox.stream('test:2');
    reply.append('fine, then **bold');
    const done = reply.finish();
    await clock.advance(1000);
    await expect(done).resolves.toMatchObject({ messageIds: ['2'] });
    expect(adapter.messages.get('2')).toMatchObject({ text: 'fine, then **bold', format: plain });
  });

  it('CAPABILITY_CHANGED re-reads the capabilities and re-splits what is not delivered yet', async () => {
    const { clock, adapter, outbox } = setup({ maxMessageLength: 32_768, dialect: markdown });
    const { deltas, text } = scriptedReply({ chars: 3000, durationMs: 10_000 });
    const reply = outbox.stream('test:1');
    // The platform turns out not to have rich messages: the third edit says so,
    // and from then on the adapter declares classic limits.
    let edits = 0;
    adapter.failNext('edit', 'CAPABILITY_CHANGED', {
      match: () => {
        if (++edits < 3) return false;
        adapter.setCapabilities({ maxMessageLength: 700, minEditIntervalMs: 1000, dialect: telegramHtml });
        return true;
      },
    });
    await play(clock, reply, deltas);
    expect(adapter.ops.some((o) => o.error === 'CAPABILITY_CHANGED')).toBe(true);
    const done = reply.finish();
    await clock.advance(20_000);
    const { messageIds } = await done;
    const messages = messageIds.map((id) => adapter.messages.get(id)!);
    expect(messages.length).toBeGreaterThanOrEqual(5);
    for (const m of messages) {
      expect(m.text.length).toBeLessThanOrEqual(700);
      expect(m.format).toBe(telegramHtml);
    }
    expect(wordsIn(messages.map((m) => m.text))).toEqual(text.match(/w\d{5}/g));
    expect(adapter.violations).toEqual([]);
  });

  it('MESSAGE_TOO_LONG splits smaller and retries', async () => {
    const { clock, adapter, outbox } = setup({ maxMessageLength: 1000 });
    // The platform counts differently than it declares: it refuses anything over 600.
    adapter.failNext('send', 'MESSAGE_TOO_LONG', {
      count: 5,
      match: (c) => (c.message?.text.length ?? 0) > 600,
    });
    const words = Array.from({ length: 150 }, (_, i) => `w${String(i).padStart(5, '0')}`).join(' ');
    const sent = outbox.send('test:1', words);
    await clock.advance(10_000);
    const ids = await sent;
    expect(ids.length).toBeGreaterThanOrEqual(2);
    const texts = ids.map((id) => adapter.messageText(id)!);
    for (const t of texts) expect(t.length).toBeLessThanOrEqual(600);
    expect(texts.join(' ').replace(/\s+/g, ' ').trim()).toBe(words);
  });
});
