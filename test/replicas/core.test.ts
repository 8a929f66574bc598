/**
 * The bot core of two replicas in one test process: two bot harnesses (real
 * core, sessions and provider against the fake Messages API) sharing one
 * PostgreSQL schema through the real PostgreSQL stores, chat lease and
 * control bus. Each replica's lease runs on a clock of its own, so the test
 * decides when a lease expires or is renewed.
 */
import type pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeButton } from '../../src/bot/buttons.js';
import { say } from '../../src/bot/text.js';
import type { StoredMessage } from '../fakes/recording-adapter.js';
import type { BotHarness } from '../helpers/bot-harness.js';
import { SKIP_REASON, testDatabaseUrl, testSchemas } from '../store-postgres/database.js';
import { pgReplicas, type Replica } from './pg-replicas.js';

const url = testDatabaseUrl();
const schemas = url ? testSchemas(url) : undefined;
const START = Date.parse('2026-01-01T00:00:00Z');
const TTL = 1_000;

const replicaOf = pgReplicas(url, { start: START, leaseTtlMs: TTL });
/** A replica on `schema`; its lease may use a pool of its own (`leasePool`), to be cut off alone. */
const replica = (schema: string, first?: Replica, leasePool?: pg.Pool) =>
  replicaOf(schema, { ...(first ? { first } : {}), ...(leasePool ? { leasePool } : {}) });

afterAll(async () => {
  await schemas?.cleanup();
});

/** Starts a turn on `r` that streams "Partial" and stalls until aborted. */
async function stalledTurn(r: Replica, text: string, partial = 'Partial'): Promise<string> {
  const fake = r.h.fakeAnthropic;
  fake.enqueue({ text: [partial, ' rest'], stallAfterChunks: 1 });
  const n = fake.log.length;
  const id = await r.h.message(text);
  await r.h.until(
    () => fake.log[n]?.chunksSent === 1 && r.h.texts().some((t) => t.includes(partial)),
    'partial reply visible',
  );
  return id;
}

/** Presses a button on `h`, driving its clock while the press waits for another replica's answer. */
async function pressAndWait(h: BotHarness, payload: string, messageId?: string): Promise<string[]> {
  let answers: string[] | undefined;
  void h.press(payload, messageId === undefined ? {} : { messageId }).then((a) => {
    answers = a;
  });
  await h.until(() => answers !== undefined, 'press answered');
  return answers as string[];
}

/** Starts a turn on `r` whose model asks to run a command, and waits for the approval prompt. */
async function approvalPrompt(r: Replica): Promise<StoredMessage> {
  r.h.fakeAnthropic.enqueue(
    { text: 'I will run it.', toolUse: [{ name: 'Bash', input: { command: 'echo approved' } }] },
    { text: 'Done running.' },
  );
  await r.h.message('please run echo');
  let prompt: StoredMessage | undefined;
  await r.h.until(() => {
    prompt = r.h.adapter.chatMessages(r.h.chat).find((m) => m.text.startsWith('🔐'));
    return prompt !== undefined && prompt.buttons.length > 0;
  }, 'approval prompt');
  return prompt as StoredMessage;
}

const allowOf = (prompt: StoredMessage) =>
  prompt.buttons.flat().find((btn) => btn.label === 'Allow')?.payload as string;

if (!url)
  describe('bot core across replicas', () => {
    it.skip(SKIP_REASON, () => undefined);
  });

describe.skipIf(!url)('bot core across replicas', () => {
  it('an edit of the running message that reaches the other replica restarts the turn where it runs', async () => {
    const schema = (schemas ?? { name: () => '' }).name();
    const a = await replica(schema);
    const b = await replica(schema, a);
    const id = await stalledTurn(a, 'first version');
    await b.h.edit(id, 'second version');
    await a.h.until(() => a.h.texts().some((t) => t.includes('second version')), 'edited answer');
    await a.h.settle();
    const asked = a.h.fakeAnthropic.requests.map((r) => JSON.stringify(r.messages.at(-1)));
    expect(asked.filter((t) => t.includes('first version'))).toHaveLength(1);
    expect(asked.filter((t) => t.includes('second version'))).toHaveLength(1);
    expect(b.h.texts()).toEqual([]);
  });

  it('a /stop or a press for a chat that no replica runs is answered at once where it arrives', async () => {
    const schema = (schemas ?? { name: () => '' }).name();
    const a = await replica(schema);
    const b = await replica(schema, a);
    expect(await b.h.ask('stop')).toBe(say.nothingToStop);
    expect(await b.h.press(encodeButton('allow', 'nosuchid'))).toEqual([say.expired]);
    expect(await b.h.press(encodeButton('stop', 'nosuchid'))).toEqual([say.alreadyFinished]);
    // While A runs the chat's turn, B hands both over instead.
    await stalledTurn(a, 'a slow one');
    // A holds no such prompt and stays silent: B says so after a few seconds, and the press may be retried.
    expect(await pressAndWait(b.h, encodeButton('allow', 'nosuchid'))).toEqual([say.replicaSilent]);
    const answers = await b.h.command('stop', '', { respond: true });
    await a.h.until(() => a.h.texts().includes(say.stopped(0, true)), 'stopped on A');
    expect(answers).toEqual([]);
    await a.h.settle();
    expect(a.h.texts().join('\n')).toContain(say.stoppedNote);
    expect(a.h.fakeAnthropic.log.at(-1)?.closedEarly).toBe(true);

    // The Stop button of A's streaming reply, pressed on B.
    await stalledTurn(a, 'another slow one', 'Second partial');
    const live = a.h.adapter
      .chatMessages(a.h.chat)
      .findLast((m) => m.buttons.flat().some((btn) => btn.label === 'Stop'));
    const stop = live?.buttons.flat().find((btn) => btn.label === 'Stop')?.payload as string;
    // The answer is A's, which stopped the reply.
    expect(await pressAndWait(b.h, stop)).toEqual([say.stopping]);
    await a.h.settle();
    expect(a.h.fakeAnthropic.log.at(-1)?.closedEarly).toBe(true);
    expect(a.h.adapter.messages.get(live?.id ?? '')?.buttons).toEqual([]);
  });

  it('a /rename or /mode on the other replica is not overwritten by the replica that ran the chat', async () => {
    const schema = (schemas ?? { name: () => '' }).name();
    const a = await replica(schema);
    const b = await replica(schema, a);
    await a.h.message('hello');
    await a.h.settle();
    expect(await b.h.ask('rename', 'parser-refactor')).toBe('Renamed this session to "parser-refactor".');
    expect(await b.h.ask('mode', 'plan')).toBe('Permission mode is now plan.');
    // A still has the chat's session in memory; its next turn must start from what B saved.
    await a.h.message('and again');
    await a.h.settle();
    const status = await a.h.ask('status');
    expect(status).toContain('"parser-refactor"');
    expect(status).toContain('Permission mode: plan');
    const id = (await a.stores.stateStore.getChat(a.h.chat))?.sessionId ?? '';
    const stored = await b.stores.sessionStore.load(id);
    expect(stored.status === 'valid' && stored.record.name).toBe('parser-refactor');
    // The two turns, and between them the mode change said to the model at the end (append-only history).
    expect(stored.status === 'valid' && stored.record.messages.map((m) => m.kind ?? m.role)).toEqual([
      'user',
      'assistant',
      'context',
      'user',
      'assistant',
    ]);
  });

  it('a replica that only looked at a chat since the other one ran it reloads the session before its next turn', async () => {
    const schema = (schemas ?? { name: () => '' }).name();
    const a = await replica(schema);
    const b = await replica(schema, a);
    await a.h.message('first turn, on A');
    await a.h.settle();
    await b.h.message('second turn, on B');
    await b.h.settle();
    // With nothing running, a /stop on A asks the lease who runs the chat: A takes it and gives it back at once.
    expect(await a.h.ask('stop')).toBe(say.nothingToStop);
    await a.h.message('third turn, on A');
    await a.h.settle();
    // A still had the session from its first turn in memory: the third turn must start from what B saved.
    const third = a.h.fakeAnthropic.requests.at(-1);
    expect(JSON.stringify(third?.messages)).toContain('second turn, on B');
    const id = (await a.stores.stateStore.getChat(a.h.chat))?.sessionId ?? '';
    const stored = await a.stores.sessionStore.load(id);
    const said =
      stored.status === 'valid' ? stored.record.messages.map((m) => JSON.stringify(m.content)) : [];
    // Each turn saved once, in the order they ran (a frame change may sit between them).
    const turns = said.filter((t) => t.includes('turn, on '));
    expect(turns.map((t) => /(first|second|third) turn/.exec(t)?.[1])).toEqual([
      'first',
      'first',
      'second',
      'second',
      'third',
      'third',
    ]);
  });

  it('a replica whose lease was taken over stops its turn, and the new holder answers from the stored session', async () => {
    const schema = (schemas ?? { name: () => '' }).name();
    const a = await replica(schema);
    const b = await replica(schema, a);
    a.h.fakeAnthropic.setDefault(() => ({ text: 'noted' }));
    await a.h.message('remember the word kiwi');
    await a.h.until(() => a.h.texts().includes('noted'), 'first answer');
    await stalledTurn(a, 'a stalled turn');
    // A stalls past its ttl (no renewal as far as B can tell): B takes the chat.
    await b.leaseClock.advance(TTL * 5);
    await b.h.message('what was the word?');
    await b.h.until(() => b.h.texts().includes('noted'), 'B answered');
    // A's next renewal finds the chat taken, and its turn stops without a notice of its own:
    // B, which took the chat and ended the cut turn, told the chat once.
    await a.leaseClock.advance(TTL);
    await a.h.until(() => a.h.logs.some((l) => l.includes('turn stopped')), 'A stopped');
    await a.h.settle();
    expect(b.h.texts().filter((t) => t === say.replicaCut)).toHaveLength(1);
    expect(a.h.texts().join('\n')).not.toContain(say.leaseLost);
    expect(a.h.texts().join('\n')).not.toContain(say.stoppedNote);
    expect(a.h.texts().some((t) => t.startsWith('Partial'))).toBe(true);
    const last = a.h.fakeAnthropic.requests.at(-1);
    expect(JSON.stringify(last.messages)).toContain('remember the word kiwi');
    expect(JSON.stringify(last.messages.at(-1))).toContain('what was the word?');
    expect(b.h.logs.some((l) => l.includes('chat moved here; reloading it'))).toBe(true);
  });

  it("a press on a dead replica's prompt is told the replica is silent; once its lease ran out the other replica takes the answer and finishes the turn", async () => {
    const schema = (schemas ?? { name: () => '' }).name();
    const a = await replica(schema);
    const b = await replica(schema, a);
    const prompt = await approvalPrompt(a);
    // A dies: it hears nothing more and never renews its lease.
    await a.bus.close();
    // Both replicas serve the same chat on the platform: B sees A's prompt message too.
    // A copy, not A's record: the dialect it was written in is shared code, its text and buttons are data.
    b.h.adapter.messages.set(prompt.id, { ...prompt, buttons: structuredClone(prompt.buttons) });
    expect(await pressAndWait(b.h, allowOf(prompt), prompt.id)).toEqual([say.replicaSilent]);
    expect(b.h.adapter.messages.get(prompt.id)?.buttons.length).toBeGreaterThan(0);
    // Past the lease ttl the chat is nobody's: the turn stored as waiting goes on here.
    await b.leaseClock.advance(TTL * 2);
    expect(await pressAndWait(b.h, allowOf(prompt), prompt.id)).toEqual(['Allowed.']);
    await b.h.until(() => b.h.texts().some((t) => t.includes('Done running.')), 'the turn finished on B');
    // The prompt was edited to say who chose (B's own messages are numbered from 1 too, so look at the edit).
    const edited = b.h.adapter.ops.find((o) => o.op === 'edit' && o.messageId === prompt.id);
    expect(edited?.text).toContain(say.allowed('Alice'));
    expect(edited?.buttons).toEqual([]);
    const resumed = JSON.stringify(b.h.fakeAnthropic.requests.at(-1).messages.at(-1).content);
    expect(resumed).toContain('tool_result');
    expect(resumed).toContain('approved');
  });

  it('a replica that stalls past its ttl while its turn runs gives the chat one notice, from the replica that claimed it', async () => {
    const schema = (schemas ?? { name: () => '' }).name();
    const a = await replica(schema);
    const b = await replica(schema, a);
    await stalledTurn(a, 'a stalled turn');
    // A stalls: B's periodic check finds its lease expired and claims the cut turn.
    await b.leaseClock.advance(TTL * 5);
    await b.h.until(() => b.h.texts().includes(say.replicaCut), 'cut turn announced');
    // A wakes up, its renewal fails, and it stops the turn without a second notice.
    await a.leaseClock.advance(TTL);
    await a.h.until(() => a.h.logs.some((l) => l.includes('turn stopped')), 'A stopped');
    await a.h.settle();
    await b.h.settle();
    const notices = [...a.h.texts(), ...b.h.texts()].filter(
      (t) => t === say.replicaCut || t.includes(say.leaseLost) || t === say.crashNotice,
    );
    expect(notices).toEqual([say.replicaCut]);
    expect(await a.stores.stateStore.activeTurns()).toEqual([]);
  });

  it('a replica that cannot renew its lease, with no other replica taking the chat, says so itself, once', async () => {
    const names = schemas ?? { name: () => '', pool: () => undefined as never };
    const schema = names.name();
    // The lease's own connections, cut while the turn runs: the stores stay reachable.
    const leasePool = names.pool();
    const a = await replica(schema, undefined, leasePool);
    await stalledTurn(a, 'a stalled turn');
    await leasePool.end();
    // Renewals fail from now on; past the ttl the lease is given up and the turn stops.
    await a.h.until(async () => {
      await a.leaseClock.advance(TTL / 4);
      return a.h.logs.some((l) => l.includes('turn stopped'));
    }, 'A stopped');
    await a.h.settle();
    expect(a.h.texts().filter((t) => t.includes(say.leaseLost))).toHaveLength(1);
    expect(a.h.texts()).not.toContain(say.replicaCut);
    expect(await a.stores.stateStore.activeTurns()).toEqual([]);
  });
});
