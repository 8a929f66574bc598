/**
 * The reply-order invariant under many seeded fault mixes: whatever mix of
 * CAPABILITY_CHANGED (with the platform switching to shorter, classic
 * messages), MESSAGE_TOO_LONG, drafts going away (STREAM_UNAVAILABLE on a stream), a stream that is gone (NOT_FOUND),
 * rejected formatting, 429s and plain failures hits a long streamed reply in
 * a private chat (with or without drafts) or a budgeted group, its messages
 * show its paragraphs once each, in order, and no call breaks the declared
 * pace.
 */
import { describe, expect, it } from 'vitest';
import type { ChatCapabilities } from '../../../src/bot/adapter-contract.js';
import { createOutbox } from '../../../src/bot/stream/index.js';
import { VirtualClock } from '../../../src/clock.js';
import type { ErrorCode } from '../../../src/errors.js';
import { type OpKind, RecordingAdapter } from '../../fakes/recording-adapter.js';
import { markdown, telegramHtml } from '../../helpers/dialects.js';

const RICH: Partial<ChatCapabilities> = {
  maxMessageLength: 32_768,
  minEditIntervalMs: 1000,
  dialect: markdown,
  nativeStream: true,
  nativeStreamMaxMs: 30_000,
};
const CLASSIC: Partial<ChatCapabilities> = { ...RICH, maxMessageLength: 4096, dialect: telegramHtml };
const NO_DRAFTS: Partial<ChatCapabilities> = { ...CLASSIC, nativeStream: false };

/** A small deterministic PRNG, so a failing seed can be replayed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Fault {
  op: OpKind;
  code: ErrorCode;
  /** Capabilities the platform declares from this failure on. */
  declares?: Partial<ChatCapabilities>;
}

const FAULTS: Fault[] = [
  { op: 'updateStream', code: 'CAPABILITY_CHANGED', declares: CLASSIC },
  { op: 'finishStream', code: 'CAPABILITY_CHANGED', declares: CLASSIC },
  { op: 'send', code: 'CAPABILITY_CHANGED', declares: CLASSIC },
  { op: 'edit', code: 'CAPABILITY_CHANGED', declares: CLASSIC },
  { op: 'updateStream', code: 'MESSAGE_TOO_LONG' },
  { op: 'finishStream', code: 'MESSAGE_TOO_LONG' },
  { op: 'send', code: 'MESSAGE_TOO_LONG' },
  { op: 'edit', code: 'MESSAGE_TOO_LONG' },
  { op: 'updateStream', code: 'STREAM_UNAVAILABLE', declares: NO_DRAFTS },
  { op: 'startStream', code: 'STREAM_UNAVAILABLE', declares: NO_DRAFTS },
  { op: 'updateStream', code: 'NOT_FOUND' },
  { op: 'send', code: 'PLATFORM_ERROR' },
  { op: 'finishStream', code: 'PLATFORM_ERROR' },
  { op: 'edit', code: 'PLATFORM_ERROR' },
  { op: 'send', code: 'FORMAT_REJECTED' },
  { op: 'edit', code: 'FORMAT_REJECTED' },
  { op: 'finishStream', code: 'FORMAT_REJECTED' },
  { op: 'updateStream', code: 'RATE_LIMITED' },
  { op: 'send', code: 'RATE_LIMITED' },
  { op: 'edit', code: 'RATE_LIMITED' },
];

async function run(seed: number) {
  const rnd = random(seed);
  const clock = new VirtualClock();
  const kind = rnd();
  const native = kind < 0.6;
  // A group chat: no drafts, a slow edit pace and 20 calls a minute.
  const group = kind > 0.85;
  const adapter = new RecordingAdapter({
    clock,
    nativeStream: native,
    latencyMs: Math.floor(rnd() * 200),
    capabilities: native
      ? RICH
      : group
        ? { ...NO_DRAFTS, minEditIntervalMs: 3000, budget: { count: 20, windowMs: 60_000 } }
        : NO_DRAFTS,
  });
  const outbox = createOutbox({ adapters: [adapter], clock });
  const count = 20 + Math.floor(rnd() * 20);
  const text = Array.from(
    { length: count },
    (_, i) =>
      `Paragraph ${i + 1}: ${'lorem ipsum dolor sit amet '.repeat(5 + Math.floor(rnd() * 10)).trim()}.`,
  ).join('\n\n');
  const reply = outbox.stream('test:1');
  let at = 0;
  let faults = 1 + Math.floor(rnd() * 5);
  while (at < text.length) {
    const size = 1 + Math.floor(rnd() * 600);
    reply.append(text.slice(at, at + size));
    at += size;
    if (faults > 0 && rnd() < 0.3) {
      faults--;
      const fault = FAULTS[Math.floor(rnd() * FAULTS.length)]!;
      adapter.failNext(fault.op, fault.code, {
        retryAfterMs: 500 + Math.floor(rnd() * 3000),
        match: () => {
          // The platform keeps a group's budget whatever else it changes.
          if (fault.declares)
            adapter.setCapabilities({ ...adapter.capabilities('test:1'), ...fault.declares });
          return true;
        },
      });
    }
    await clock.advance(Math.floor(rnd() * 700));
  }
  let settled = false;
  void reply.finish().then(() => {
    settled = true;
  });
  await clock.advanceUntil(() => settled, 600_000);
  const shown = adapter
    .chatMessages('test:1')
    .flatMap((m) => [...m.text.matchAll(/Paragraph (\d+):/g)].map((x) => Number(x[1])));
  expect(shown, `seed ${seed}`).toEqual(Array.from({ length: count }, (_, i) => i + 1));
  expect(adapter.violations, `seed ${seed}`).toEqual([]);
}

describe('reply order under faults', () => {
  it('shows every paragraph once and in order, with no pace violation, across 100 seeded fault mixes', async () => {
    for (let seed = 1; seed <= 100; seed++) await run(seed);
  });
});
