/**
 * Load: 500 private chats on the fake Bot API, two turns each (all chats at
 * once, the second round after every first reply), with the fake enforcing
 * Telegram's limits: one edit or draft update per message per second, 3
 * calls per second per chat, 30 per second for the whole bot. To run in
 * seconds, the fake's limits and the adapter's declared paces are both
 * divided by the same factor (10): the same rules, ten times faster. The
 * figures (turns, time, 429s, lost and doubled replies, event-loop lag) are
 * printed with the test output. Each round waits for every turn to finish
 * (the bot idle, its outbox drained), never for a count of bot messages: a
 * message exists before its last edit lands, and on a loaded machine a count
 * is reached while replies are still streaming.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageUpdate } from '../fakes/telegram/index.js';
import { startTelegramWorld, type TelegramWorld, watchUnhandled } from './telegram-world.js';

const CHATS = 500;
const TURNS = 2;
const FACTOR = 10;
const WARM_UP_CHAT = 9_999;
/**
 * Only a bound on a hang: each round waits for the event (every turn
 * started and finished). A round takes ~20 s alone on two busy cores, and
 * several times that while the rest of the suite runs beside it.
 */
const ROUND_LIMIT_MS = 150_000;

/**
 * Waits until every turn pushed so far has run to its end and its reply is
 * delivered: the model has seen all `requests` (so every update reached the
 * bot), no chat has a turn running or queued, and the outbox has no call
 * queued or in flight.
 */
async function everyReplyFinished(w: TelegramWorld, requests: number): Promise<void> {
  await w.telegram.waitFor(() => w.anthropic.requests.length >= requests, ROUND_LIMIT_MS);
  await w.bot.idle();
  await w.bot.outbox.idle();
}

interface Figures {
  lost: string[];
  doubled: string[];
  rateLimited: Array<{ method: string; at: number }>;
  unhandled: unknown[];
  modelRequests: number;
}

let world: TelegramWorld | undefined;
let figures: Figures;

beforeAll(async () => {
  const unhandled = watchUnhandled();
  const ids = Array.from({ length: CHATS }, (_, i) => 10_000 + i);
  world = await startTelegramWorld({ factor: FACTOR, allowed: [WARM_UP_CHAT, ...ids] });
  const w = world;
  // Two chunks per reply, so each turn streams (a draft update) before its final message.
  w.anthropic.setDefault((body) => {
    const last = JSON.stringify(body.messages.at(-1)?.content ?? '');
    const tag = /turn (\d+) of chat (\d+)/.exec(last);
    return { text: [`Reply to turn ${tag?.[1]} `, `of chat ${tag?.[2]}.`], chunkDelayMs: 5 };
  });
  // Warm up (lazy imports, first files) on a chat outside the measured set.
  w.telegram.pushUpdate(
    messageUpdate({ chatId: WARM_UP_CHAT, user: { id: WARM_UP_CHAT } }, 'turn 0 of chat 9999'),
  );
  await everyReplyFinished(w, 1);
  const base = w.telegram.state.calls.length;
  const lag = monitorEventLoopDelay({ resolution: 5 });
  lag.enable();
  const started = Date.now();
  for (let turn = 1; turn <= TURNS; turn++) {
    for (const id of ids) {
      w.telegram.pushUpdate(messageUpdate({ chatId: id, user: { id } }, `turn ${turn} of chat ${id}`));
    }
    await everyReplyFinished(w, CHATS * turn + 1);
  }
  const elapsedMs = Date.now() - started;
  lag.disable();
  const lost: string[] = [];
  const doubled: string[] = [];
  let split = 0;
  for (const id of ids) {
    // A slow turn may outlive a draft's maximum age (30 s, here 3 s): the
    // draft becomes a message at a word boundary and the reply goes on in the
    // next one, so a reply is a run of consecutive messages.
    const texts = w.texts(id);
    const shown = texts.join(' ');
    split += texts.length - TURNS;
    for (let turn = 1; turn <= TURNS; turn++) {
      const expected = `Reply to turn ${turn} of chat ${id}.`;
      const n = shown.split(expected).length - 1;
      if (n === 0) lost.push(expected);
      if (n > 1) doubled.push(expected);
    }
  }
  const calls = w.telegram.state.calls.slice(base);
  const rateLimited = calls.filter((c) => c.outcome === 429).map((c) => ({ method: c.method, at: c.at }));
  unhandled.stop();
  figures = {
    lost,
    doubled,
    rateLimited,
    unhandled: unhandled.errors,
    modelRequests: w.anthropic.requests.length,
  };
  console.log(
    `[load] ${CHATS} chats x ${TURNS} turns = ${CHATS * TURNS} turns in ${(elapsedMs / 1000).toFixed(1)} s ` +
      `(Telegram limits and paces / ${FACTOR}); Bot API calls ${calls.length}; 429s ${rateLimited.length}; ` +
      `lost replies ${lost.length}; doubled replies ${doubled.length}; ` +
      `replies continued in a second message (draft age) ${split}; event-loop lag p99 ` +
      `${(lag.percentile(99) / 1e6).toFixed(0)} ms, max ${(lag.max / 1e6).toFixed(0)} ms`,
  );
}, 3 * ROUND_LIMIT_MS);

afterAll(async () => {
  await world?.close();
});

describe(`load: ${CHATS} concurrent Telegram chats x ${TURNS} turns`, () => {
  it('every reply is delivered exactly once, with no unhandled rejection', () => {
    expect(figures.lost).toEqual([]);
    expect(figures.doubled).toEqual([]);
    expect(figures.modelRequests).toBe(CHATS * TURNS + 1);
    expect(figures.unhandled).toEqual([]);
  });

  it('never exceeds the documented limits: no 429 from the fake', () => {
    expect(figures.rateLimited).toEqual([]);
  });
});
