/**
 * The messages of a reply appear in the chat in the reply's order: a later
 * part's message (a send, a stream start, a stream finish) is never created
 * before every earlier part has a real message, whatever re-split or
 * fallback happened in between.
 */
import { describe, expect, it } from 'vitest';
import type { ChatCapabilities } from '../../../src/bot/adapter-contract.js';
import { createOutbox } from '../../../src/bot/stream/index.js';
import { VirtualClock } from '../../../src/clock.js';
import { RecordingAdapter } from '../../fakes/recording-adapter.js';
import { markdown, telegramHtml } from '../../helpers/dialects.js';

/** A Telegram private chat with rich messages and drafts. */
const RICH: Partial<ChatCapabilities> = {
  maxMessageLength: 32_768,
  minEditIntervalMs: 1000,
  dialect: markdown,
  nativeStream: true,
  nativeStreamMaxMs: 30_000,
};
/** The same chat after the server lost rich messages: classic 4096-char HTML messages, drafts still on. */
const CLASSIC: Partial<ChatCapabilities> = { ...RICH, maxMessageLength: 4096, dialect: telegramHtml };

/** 30 paragraphs of ~310 characters: three classic messages, one rich one. */
const ESSAY = Array.from(
  { length: 30 },
  (_, i) => `Paragraph ${i + 1}: ${'lorem ipsum dolor sit amet '.repeat(11).trim()}.`,
).join('\n\n');

function setup(caps: Partial<ChatCapabilities>) {
  const clock = new VirtualClock();
  const adapter = new RecordingAdapter({ clock, nativeStream: true, latencyMs: 40, capabilities: caps });
  const outbox = createOutbox({ adapters: [adapter], clock });
  return { clock, adapter, outbox };
}

/** Paragraph numbers in the order the chat shows them, across its messages. */
function paragraphsShown(adapter: RecordingAdapter, chat: string): number[] {
  return adapter
    .chatMessages(chat)
    .flatMap((m) => [...m.text.matchAll(/Paragraph (\d+):/g)].map((x) => Number(x[1])));
}

/** The successful calls that create something the user sees as a new message. */
function creations(adapter: RecordingAdapter) {
  return adapter.ops.filter(
    (o) => o.ok && (o.op === 'send' || o.op === 'startStream' || o.op === 'finishStream'),
  );
}

const ALL = Array.from({ length: 30 }, (_, i) => i + 1);

describe('reply order', () => {
  it('keeps parts in order when the first draft answers CAPABILITY_CHANGED and the reply is re-split', async () => {
    const { clock, adapter, outbox } = setup(RICH);
    adapter.failNext('updateStream', 'CAPABILITY_CHANGED', {
      // The server lost rich messages: the adapter declares classic ones from now on.
      match: () => {
        adapter.setCapabilities(CLASSIC);
        return true;
      },
    });
    const reply = outbox.stream('test:1');
    reply.append(ESSAY);
    await clock.advance(100);
    expect(adapter.ops.map((o) => [o.op, o.ok])).toEqual([
      ['startStream', true],
      ['updateStream', false],
    ]);
    const done = reply.finish();
    await clock.advance(5000);
    const { messageIds } = await done;
    expect(adapter.chatMessages('test:1').map((m) => m.text.slice(0, 13))).toEqual([
      'Paragraph 1: ',
      'Paragraph 14:',
      'Paragraph 27:',
    ]);
    expect(adapter.chatMessages('test:1').map((m) => m.id)).toEqual(messageIds);
    // The draft became the first message before the second part was sent.
    expect(creations(adapter).map((o) => o.op)).toEqual(['startStream', 'finishStream', 'send', 'send']);
    expect(paragraphsShown(adapter, 'test:1')).toEqual(ALL);
    expect(adapter.violations).toEqual([]);
  });

  it('keeps parts in order when a draft answers MESSAGE_TOO_LONG and the reply is re-split shorter', async () => {
    const { clock, adapter, outbox } = setup({ ...CLASSIC, maxMessageLength: 10_000 });
    const reply = outbox.stream('test:1');
    reply.append('Intro.\n\n');
    await clock.advance(100);
    expect(adapter.ops.map((o) => o.op)).toEqual(['startStream', 'updateStream']);
    adapter.failNext('updateStream', 'MESSAGE_TOO_LONG');
    reply.append(ESSAY);
    // The next update may leave a second after the first one was answered (no round trips known yet).
    await clock.advance(1100);
    expect(adapter.ops.filter((o) => !o.ok).map((o) => o.error)).toEqual(['MESSAGE_TOO_LONG']);
    const done = reply.finish();
    await clock.advance(5000);
    await done;
    const messages = adapter.chatMessages('test:1');
    expect(messages.length).toBe(2);
    expect(messages[0]!.text.startsWith('Intro.')).toBe(true);
    expect(messages[0]!.fromStream).toBeDefined();
    expect(paragraphsShown(adapter, 'test:1')).toEqual(ALL);
    expect(creations(adapter).map((o) => o.op)).toEqual(['startStream', 'finishStream', 'send']);
    expect(adapter.violations).toEqual([]);
  });

  it('opens the next stream only after the stream that outgrew its message is a real message', async () => {
    const { clock, adapter, outbox } = setup({ ...CLASSIC, maxMessageLength: 4000 });
    const reply = outbox.stream('test:1');
    reply.append('Paragraph 0: start.\n\n');
    await clock.advance(100);
    // More text than one message holds arrives while the first stream waits for its pace slot.
    reply.append(ESSAY.slice(0, 6000));
    await clock.advance(100);
    reply.append(ESSAY.slice(6000));
    const done = reply.finish();
    await clock.advance(6000);
    await done;
    const made = creations(adapter);
    // A platform's stream start posts a message (Slack): it must follow the earlier part's message.
    expect(made.map((o) => o.op)).toEqual(['startStream', 'finishStream', 'send', 'send']);
    expect(paragraphsShown(adapter, 'test:1')).toEqual([0, ...ALL]);
    expect(adapter.violations).toEqual([]);
  });

  it('keeps parts in order when drafts go away mid-reply and the reply continues in edited messages', async () => {
    const { clock, adapter, outbox } = setup(CLASSIC);
    const reply = outbox.stream('test:1');
    reply.append('Paragraph 0: start.\n\n');
    await clock.advance(100);
    adapter.failNext('updateStream', 'STREAM_UNAVAILABLE', {
      match: () => {
        adapter.setCapabilities({ ...CLASSIC, nativeStream: false });
        return true;
      },
    });
    reply.append(ESSAY.slice(0, 3000));
    await clock.advance(1000);
    reply.append(ESSAY.slice(3000));
    const done = reply.finish();
    await clock.advance(8000);
    await done;
    expect(adapter.ops.filter((o) => !o.ok).map((o) => [o.op, o.error])).toEqual([
      ['updateStream', 'STREAM_UNAVAILABLE'],
    ]);
    expect(paragraphsShown(adapter, 'test:1')).toEqual([0, ...ALL]);
    expect(adapter.violations).toEqual([]);
  });
});
