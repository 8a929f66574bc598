import { describe, expect, it } from 'vitest';
import { markdown, plain } from '../../../src/bot/format/dialect.js';
import { VirtualClock } from '../../../src/clock.js';
import { RecordingAdapter } from '../../fakes/recording-adapter.js';

const msg = (text: string) => ({ text, format: markdown });

describe('RecordingAdapter (the fake the outbox tests trust)', () => {
  it('refuses an edit closer than the declared interval with RATE_LIMITED and lists the violation', async () => {
    const clock = new VirtualClock();
    const adapter = new RecordingAdapter({ clock, capabilities: { minEditIntervalMs: 1000 } });
    const { messageId } = await adapter.send('test:1', msg('a'));
    await clock.advance(400);
    await expect(adapter.edit('test:1', messageId, msg('b'))).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      retryAfterMs: 600,
    });
    expect(adapter.violations).toEqual([
      { time: 400, op: 'edit', chat: 'test:1', messageId, rule: 'interval' },
    ]);
    expect(adapter.messageText(messageId)).toBe('a');
    await clock.advance(600);
    await adapter.edit('test:1', messageId, msg('b'));
    expect(adapter.messageText(messageId)).toBe('b');
  });

  it('enforces chat and global budgets, lengths, empty text and unknown messages', async () => {
    const clock = new VirtualClock();
    const adapter = new RecordingAdapter({
      clock,
      capabilities: { maxMessageLength: 10, budget: { count: 2, windowMs: 1000 } },
      globalBudget: { count: 3, windowMs: 1000 },
    });
    await adapter.send('test:1', msg('one'));
    await adapter.typing('test:1');
    await expect(adapter.send('test:1', msg('x'))).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      retryAfterMs: 1000,
    });
    await adapter.send('test:2', msg('two'));
    await expect(adapter.send('test:3', msg('x'))).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      scope: 'global',
    });
    expect(adapter.violations.map((v) => v.rule)).toEqual(['budget', 'global']);
    await clock.advance(1000);
    await expect(adapter.send('test:1', msg('x'.repeat(11)))).rejects.toMatchObject({
      code: 'MESSAGE_TOO_LONG',
    });
    await expect(adapter.send('test:1', msg('  '))).rejects.toMatchObject({ code: 'PLATFORM_ERROR' });
    await expect(adapter.edit('test:1', '999', msg('x'))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(adapter.chatMessages('test:1').map((m) => m.text)).toEqual(['one']);
  });

  it('injects failures, format rejections and 429s, and resolves waiters on ops', async () => {
    const clock = new VirtualClock();
    const adapter = new RecordingAdapter({ clock, latencyMs: 25 });
    adapter.failNextEdits(1);
    adapter.rejectFormat(/\*\*/);
    adapter.rateLimitNext(3000, { ops: 'typing' });
    const next = adapter.waitForOp((o) => o.op === 'send');
    const sent = adapter.send('test:1', msg('**x**'));
    await clock.advance(25);
    await expect(sent).rejects.toMatchObject({ code: 'FORMAT_REJECTED' });
    await expect(next).resolves.toMatchObject({ time: 25, op: 'send', ok: false, error: 'FORMAT_REJECTED' });
    const asPlain = adapter.send('test:1', { text: '**x**', format: plain });
    await clock.advance(25);
    const { messageId } = await asPlain;
    const edit = adapter.edit('test:1', messageId, msg('y'));
    const typing = adapter.typing('test:1');
    await clock.advance(1025);
    await expect(edit).rejects.toMatchObject({ code: 'PLATFORM_ERROR' });
    await expect(typing).rejects.toMatchObject({ code: 'RATE_LIMITED', retryAfterMs: 3000 });
    expect(adapter.violations).toEqual([]);
  });

  it('keeps native streams visible until finished into a real message', async () => {
    const clock = new VirtualClock();
    const adapter = new RecordingAdapter({
      clock,
      nativeStream: true,
      capabilities: { minEditIntervalMs: 500 },
    });
    const handle = await adapter.startStream('test:1', {});
    await adapter.updateStream(handle, msg('par'));
    expect(adapter.visibleText('test:1')).toBe('par');
    await expect(adapter.updateStream(handle, msg('part'))).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    await clock.advance(500);
    const { messageId } = await adapter.finishStream(handle, msg('partial'));
    expect(adapter.streams.size).toBe(0);
    expect(adapter.messages.get(messageId)).toMatchObject({ text: 'partial', fromStream: handle.id });
    const plain = new RecordingAdapter({ clock });
    expect(plain.startStream).toBeUndefined();
  });
});
