/**
 * Two replicas of the ready bot on one PostgreSQL database (see cluster.ts):
 * turns of many chats spread over both and none runs twice; a redelivered
 * update that reaches the other replica is dropped; /stop and an approval
 * delivered to the replica that is not running the turn reach it; and a
 * replica SIGKILLed mid-turn hands its chat to the other once its lease ran
 * out, with the session intact.
 */

import type { Update } from 'grammy/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { say } from '../../src/bot/text.js';
import { callbackUpdate, messageUpdate } from '../fakes/telegram/index.js';
import { SKIP_REASON, testDatabaseUrl } from '../store-postgres/database.js';
import { type Cluster, lastUserText, logged, startCluster } from './cluster.js';

const url = testDatabaseUrl();
const LEASE_TTL_S = 2;
const CHATS = [101, 102, 103, 104, 105, 106, 107, 108];
const APPROVER = 201;
const STOPPER = 202;
const SURVIVOR = 301;
const QUIET = 302;
const LONG = Array.from({ length: 80 }, (_, i) => `Sentence ${i + 1} of a long story. `);
const who = (id: number) => ({ chatId: id, user: { id, first_name: `User${id}` } });

let cluster: Cluster | undefined;

beforeAll(async () => {
  if (!url) return;
  cluster = await startCluster(url, [...CHATS, APPROVER, STOPPER, SURVIVOR, QUIET], LEASE_TTL_S);
  cluster.anthropic.setDefault((body) => {
    const text = lastUserText(body);
    if (text.includes('long story')) return { text: LONG, chunkDelayMs: 100 };
    if (text.includes('run the tests') && !JSON.stringify(body.messages).includes('tool_result'))
      return { text: 'Running them.', toolUse: [{ name: 'Bash', input: { command: 'echo replicated' } }] };
    if (JSON.stringify(body.messages).includes('replicated')) return { text: 'The tests ran.' };
    return { text: ['You said: ', text], chunkDelayMs: 30 };
  });
}, 120_000);

afterAll(async () => {
  await cluster?.close();
});

if (!url)
  describe('replicas on PostgreSQL', () => {
    it.skip(SKIP_REASON, () => undefined);
  });

describe.skipIf(!url)('two replicas on one PostgreSQL database', () => {
  it('spreads the turns of many chats over both replicas and runs each message exactly once', async () => {
    const c = cluster as Cluster;
    const [a, b] = c.replicas;
    expect(a.id).not.toBe(b.id);
    const sent: Array<{ chat: number; text: string }> = [];
    // Each chat's two messages go to different replicas, back to back.
    for (const round of [0, 1]) {
      for (const [i, chat] of CHATS.entries()) {
        const text = `message ${round + 1} of chat ${chat}`;
        c.deliver((i + round) % 2 === 0 ? a : b, messageUpdate(who(chat), text));
        sent.push({ chat, text });
      }
    }
    const replied = (s: { chat: number; text: string }) =>
      c.texts(s.chat).filter((t) => t.startsWith('You said:') && t.endsWith(s.text)).length;
    await c.telegram.waitFor(() => sent.every((s) => replied(s) >= 1), 60_000);

    // A redelivery of an update the first replica handled, posted to the second, is dropped.
    const again = messageUpdate(who(CHATS[0] as number), 'message 3 of a redelivery');
    const againId = c.deliver(a, again);
    await c.telegram.waitFor(() => c.texts(CHATS[0] as number).some((t) => t.includes('redelivery')), 45_000);
    expect(await c.redeliver(b, { update_id: againId, ...again } as Update)).toBe(200);
    await b.bot.waitForLog(/duplicate delivery ignored/);

    for (const s of sent) {
      expect(c.anthropic.requests.filter((r) => lastUserText(r).endsWith(s.text))).toHaveLength(1);
      expect(replied(s)).toBe(1);
    }
    expect(c.anthropic.requests.filter((r) => lastUserText(r).includes('redelivery'))).toHaveLength(1);
    // Both replicas ran turns, and each chat's second turn saw its first (history in the shared store).
    const turnsOn = (r: typeof a) => logged(r, /"turn started"/).length;
    expect(turnsOn(a)).toBeGreaterThan(2);
    expect(turnsOn(b)).toBeGreaterThan(2);
    // Messages of one chat met on both replicas: one waited for the other's lease, then reloaded.
    const waits = [a, b].flatMap((r) => logged(r, /waiting for its lease/)).length;
    expect(waits).toBeGreaterThan(0);
    for (const chat of CHATS) {
      const mine = c.anthropic.requests.filter((r) => lastUserText(r).endsWith(`of chat ${chat}`));
      expect(mine).toHaveLength(2);
      const [first, second] = mine.map(lastUserText);
      expect(JSON.stringify(c.anthropic.requests[c.anthropic.requests.indexOf(mine[1])].messages)).toContain(
        first,
      );
      expect(second).not.toBe(first);
    }
  }, 180_000);

  it('brings an approval and a /stop delivered to the other replica to the running turn', async () => {
    const c = cluster as Cluster;
    const [a, b] = c.replicas;

    // Approval: the turn runs on A and waits; the press arrives at B.
    c.deliver(a, messageUpdate(who(APPROVER), 'please run the tests'));
    const prompt = () =>
      c.telegram
        .botMessages(APPROVER)
        .find((m) => m.replyMarkup?.inline_keyboard.flat().some((btn) => btn.text === 'Allow'));
    await c.telegram.waitFor(() => prompt() !== undefined, 60_000);
    const allow = prompt()
      ?.replyMarkup?.inline_keyboard.flat()
      .find((btn) => btn.text === 'Allow') as { callback_data: string };
    const press = callbackUpdate(who(APPROVER), prompt()?.messageId ?? 0, allow.callback_data);
    const pressId = (press.callback_query as { id: string }).id;
    c.deliver(b, press);
    await c.telegram.waitFor(() => c.texts(APPROVER).some((t) => t.includes('The tests ran.')), 60_000);
    const answer = c.telegram.callsTo('answerCallbackQuery').find((x) => x.callback_query_id === pressId);
    // The person is told what the replica running the turn did with the press.
    expect(answer?.text).toBe(say.answered.allow);
    expect(c.texts(APPROVER).join('\n')).toContain('Allowed by User201');
    await a.bot.waitForLog(/"approval settled"/);
    const ranOn = logged(a, /"approval settled"/);
    expect(ranOn.some((l) => l.answer === 'allow' && l.accepted === true)).toBe(true);
    expect(logged(b, /"approval settled"/)).toHaveLength(0);

    // Stop: a long reply streams on A; /stop arrives at B.
    c.deliver(a, messageUpdate(who(STOPPER), 'tell a long story'));
    const shown = () =>
      c.telegram.draftsIn(STOPPER).flatMap((d) => d.texts.filter((t) => t.includes('Sentence'))).length;
    await c.telegram.waitFor(() => shown() >= 2, 60_000);
    c.deliver(b, messageUpdate(who(STOPPER), '/stop'));
    await c.telegram.waitFor(() => c.texts(STOPPER).includes(say.stopped(0, true)), 30_000);
    // Log lines reach the pipe a little after the chat's messages: wait for them.
    const sentAt = JSON.parse(
      await b.bot.waitForLog(new RegExp(`"chat":"telegram:${STOPPER}".*"control message sent to the other`)),
    );
    const stoppedAt = JSON.parse(
      await a.bot.waitForLog(new RegExp(`"chat":"telegram:${STOPPER}".*"chat stopped"`)),
    );
    expect(sentAt).toBeDefined();
    expect(stoppedAt).toBeDefined();
    // From B publishing the stop to A acting on it: well within a second.
    expect(Number(stoppedAt?.time) - Number(sentAt?.time)).toBeLessThan(1000);
    expect(c.texts(STOPPER).join('\n')).not.toContain(LONG.at(-1)?.trim());
    expect(c.texts(STOPPER).filter((t) => t === say.stopped(0, true))).toHaveLength(1);
    expect(c.texts(STOPPER)).not.toContain(say.nothingToStop);
  }, 180_000);

  it('lets the other replica take a chat after its replica was killed mid-turn, with the session intact', async () => {
    const c = cluster as Cluster;
    const [a, b] = c.replicas;
    c.deliver(a, messageUpdate(who(SURVIVOR), 'remember the word kiwi'));
    await c.telegram.waitFor(
      () => c.texts(SURVIVOR).some((t) => t.includes('remember the word kiwi')),
      20_000,
    );
    c.deliver(a, messageUpdate(who(SURVIVOR), 'now tell a long story'));
    // A second chat cut at the same time, which nobody writes to afterwards.
    c.deliver(a, messageUpdate(who(QUIET), 'tell a quiet long story'));
    const shown = (chat: number) =>
      c.telegram.draftsIn(chat).flatMap((d) => d.texts.filter((t) => t.includes('Sentence'))).length;
    await c.telegram.waitFor(() => shown(SURVIVOR) >= 2 && shown(QUIET) >= 1, 60_000);
    await a.bot.kill();
    const killedAt = Date.now();

    c.deliver(b, messageUpdate(who(SURVIVOR), 'what was the word?'));
    await c.telegram.waitFor(() => c.texts(SURVIVOR).some((t) => t.includes('what was the word?')), 60_000);
    // B waited for the dead replica's lease to run out, then took the chat and reloaded its session.
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(LEASE_TTL_S * 1000 - 500);
    await b.bot.waitForLog(/"chat moved here; reloading it"/);
    const asked = c.anthropic.requests.filter((r) => lastUserText(r).endsWith('what was the word?'));
    expect(asked).toHaveLength(1);
    expect(JSON.stringify(asked[0].messages)).toContain('remember the word kiwi');
    expect(c.anthropic.requests.filter((r) => lastUserText(r).includes('long story'))).toHaveLength(3);
    // The cut reply is announced once, by the replica that took the chat over.
    await c.telegram.waitFor(() => c.texts(SURVIVOR).includes(say.replicaCut), 30_000);
    expect(c.texts(SURVIVOR).filter((t) => t === say.replicaCut)).toHaveLength(1);
    // The quiet chat is told by the periodic check, about one ttl after the lease ran out.
    await c.telegram.waitFor(() => c.texts(QUIET).includes(say.replicaCut), 4 * LEASE_TTL_S * 1000);
    expect(c.texts(QUIET).filter((t) => t === say.replicaCut)).toHaveLength(1);

    const everything = [...a.bot.lines, ...b.bot.lines, ...a.bot.stderr, ...b.bot.stderr].join('\n');
    expect(everything).not.toContain('switchboard_test:switchboard_test');
  }, 180_000);
});
