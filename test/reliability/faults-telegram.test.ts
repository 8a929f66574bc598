/**
 * Faults on Telegram and on the model, across 40 concurrent chats: the real
 * grammy adapter against the fake Bot API injecting ~10% faults (429 with
 * retry_after, 502, slow answers, dropped connections) on every method the
 * bot writes with, and the fake Anthropic API answering some chats 529
 * (retried by the SDK), ending others with an SSE error mid-reply or a
 * dropped connection. Telegram's limits and paces are divided by 10 on both
 * sides to keep the run short.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { faultyModel, type ModelFault, modelFaultFor } from '../fakes/faults.js';
import { messageUpdate } from '../fakes/telegram/index.js';
import {
  startTelegramWorld,
  type TelegramWorld,
  TG_API_KEY,
  TG_TOKEN,
  watchUnhandled,
} from './telegram-world.js';

const CHATS = 40;
const FIRST = 20_000;

let world: TelegramWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const replyFor = (key: string) => `Answer for ${key}: all is well.`;

describe('faults: Telegram and the model misbehave under 40 concurrent chats', () => {
  it('every turn ends with its full reply once or a clear error; faulted chats answer their next message', async () => {
    const unhandled = watchUnhandled();
    const ids = Array.from({ length: CHATS }, (_, i) => FIRST + i);
    world = await startTelegramWorld({ factor: 10, allowed: ids });
    const w = world;
    const faultOf = (key: string): ModelFault => {
      const m = /turn (\d+) of chat (\d+)/.exec(key);
      return m?.[1] === '1' ? modelFaultFor(Number(m[2]) - FIRST) : 'none';
    };
    w.anthropic.setDefault(
      faultyModel({
        keyOf: (body) =>
          /turn \d+ of chat \d+/.exec(JSON.stringify(body.messages.at(-1)?.content ?? ''))?.[0],
        faultOf,
        reply: replyFor,
      }),
    );
    const writes = /^(sendRichMessage|sendRichMessageDraft|sendMessage|editMessageText|sendChatAction)$/;
    w.telegram.fault({ method: writes, kind: 'rate-limit', retryAfter: 1, share: 0.03 });
    w.telegram.fault({ method: writes, kind: 'server-error', status: 502, share: 0.03 });
    w.telegram.fault({ method: writes, kind: 'slow', delayMs: 300, share: 0.03 });
    w.telegram.fault({ method: writes, kind: 'drop', share: 0.02 });
    // Polling itself fails too: a 502 and a dropped long poll.
    w.telegram.fault({ method: 'getUpdates', kind: 'server-error', status: 502, times: 1 });
    w.telegram.fault({ method: 'getUpdates', kind: 'drop', times: 1 });

    for (const id of ids)
      w.telegram.pushUpdate(messageUpdate({ chatId: id, user: { id } }, `turn 1 of chat ${id}`));
    // A slow turn may outlive a draft's maximum age (30 s, here 3 s): the draft
    // becomes a message at a word boundary and the reply goes on in the next
    // one. So a reply is a run of consecutive messages: count it in their text.
    const shows = (id: number, reply: string) => w.texts(id).join(' ').split(reply).length - 1;
    const ended = (id: number) =>
      shows(id, replyFor(`turn 1 of chat ${id}`)) > 0 || w.texts(id).some((t) => t.includes('⚠️'));
    await w.telegram.waitFor(() => ids.every(ended), 30_000);
    // Every turn has ended: let what is still queued land before counting (a second copy would be late).
    await w.bot.idle();
    await w.bot.outbox.idle();

    const outcome = { full: 0, error: 0 };
    for (const id of ids) {
      const texts = w.texts(id);
      const fault = faultOf(`turn 1 of chat ${id}`);
      const full = shows(id, replyFor(`turn 1 of chat ${id}`));
      const errors = texts.filter((t) => t.includes('⚠️'));
      expect(
        full,
        `chat ${id} (${fault}) shows the reply at most once: ${JSON.stringify(texts)}`,
      ).toBeLessThanOrEqual(1);
      if (fault === 'mid-stream-error' || fault === 'dropped') {
        // The cut reply is not passed off as complete, and the chat is told why.
        expect(full, `chat ${id}`).toBe(0);
        expect(errors.length, `chat ${id} (${fault}): ${JSON.stringify(texts)}`).toBe(1);
        expect(errors[0]).toMatch(/overloaded|connection|try again/i);
        outcome.error++;
      } else {
        expect(full, `chat ${id} (${fault}): ${JSON.stringify(texts)}`).toBe(1);
        expect(errors).toEqual([]);
        outcome.full++;
      }
    }
    const injected = w.telegram.state.calls.filter((c) => c.outcome !== 'ok').length;
    console.log(
      `[faults] ${CHATS} chats: ${outcome.full} full replies, ${outcome.error} clear errors; ` +
        `Bot API calls ${w.telegram.state.calls.length}, failed or dropped ${injected}`,
    );
    expect(injected).toBeGreaterThan(0);
    expect(
      w.telegram.state.calls.filter((c) => c.method === 'getUpdates' && c.outcome !== 'ok'),
    ).toHaveLength(2);

    // The chats whose turn failed still work: their next message is answered in full.
    w.telegram.clearFaults();
    const faulted = ids.filter((id) => faultOf(`turn 1 of chat ${id}`) !== 'none');
    for (const id of faulted)
      w.telegram.pushUpdate(messageUpdate({ chatId: id, user: { id } }, `turn 2 of chat ${id}`));
    await w.telegram.waitFor(
      () => faulted.every((id) => shows(id, replyFor(`turn 2 of chat ${id}`)) > 0),
      20_000,
    );
    const seen = [...w.lines, ...ids.flatMap((id) => w.texts(id))].join('\n');
    expect(seen).not.toContain(TG_TOKEN);
    expect(seen).not.toContain(TG_API_KEY);
    unhandled.stop();
    expect(unhandled.errors).toEqual([]);
  }, 60_000);
});
