import { afterEach, describe, expect, it } from 'vitest';
import { type BotHarness, startBotHarness } from '../helpers/bot-harness.js';

let h: BotHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const paragraph = (i: number) =>
  `Paragraph ${i} has plain words that go on for a while, so that the reply grows long.`;
const code = [
  '```ts',
  ...Array.from({ length: 14 }, (_, i) => `const value${i} = ${i} * 2; // line ${i}`),
  '```',
].join('\n');
const FULL = [...[0, 1, 2, 3].map(paragraph), code, ...[4, 5, 6, 7, 8, 9, 10, 11].map(paragraph)].join(
  '\n\n',
);

describe('bot core: streaming end to end', () => {
  it('a long streamed reply keeps the declared pace, splits cleanly around a code fence and ends with the exact text', async () => {
    h = await startBotHarness({
      capabilities: {
        maxMessageLength: 400,
        minEditIntervalMs: 1000,
        budget: { count: 20, windowMs: 60_000 },
      },
    });
    h.adapter.latencyMs = 40;
    // One 429 with retry_after on an edit along the way.
    h.adapter.rateLimitNext(2_000, { ops: 'edit' });
    const chunks = FULL.match(/[\s\S]{1,23}/g) ?? [];
    h.fakeAnthropic.enqueue({ text: chunks, chunkDelayMs: 2 });
    await h.message('write a long answer');
    await h.settle();

    expect(h.adapter.violations).toEqual([]);
    const messages = h.adapter.chatMessages(h.chat);
    const texts = messages.map((m) => m.text);
    expect(texts.length).toBeGreaterThanOrEqual(4);
    for (const m of messages) {
      expect(m.text.length).toBeLessThanOrEqual(400);
      expect(m.text.split('\n').filter((l) => l.startsWith('```')).length % 2).toBe(0);
      expect(m.buttons).toEqual([]);
    }
    // The parts are the reply split at paragraph / line boundaries, the fence closed and reopened.
    const rejoined = texts.join('\n\n').replace(/\n```\n\n```ts\n/g, '\n');
    expect(rejoined).toBe(FULL);
    // At most one call per message per interval, on every message.
    const times = new Map<string, number[]>();
    for (const op of h.adapter.ops.filter((o) => o.ok && o.messageId)) {
      times.set(op.messageId as string, [...(times.get(op.messageId as string) ?? []), op.time]);
    }
    for (const list of times.values()) {
      for (let i = 1; i < list.length; i++)
        expect((list[i] as number) - (list[i - 1] as number)).toBeGreaterThanOrEqual(1000);
    }
    expect(h.adapter.ops.some((o) => o.op === 'edit' && o.error === 'RATE_LIMITED')).toBe(true);
  });
});
