/**
 * Part 3: persistence on disk with the default lowdb store, in a temp
 * directory. Time to persist one turn at several history lengths (a turn must
 * append, not rewrite the history), `list()` over many stored sessions, and
 * the bot's cold start over a data directory holding them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { ChatAdapter, ChatCapabilities } from '../src/bot/adapter-contract.js';
import { markdown } from '../src/bot/format/dialect.js';
import { createBot } from '../src/bot/index.js';
import { createSessionFactory } from '../src/session/factory.js';
import type { HistoryMessage } from '../src/session/types.js';
import { createBotStateStore, createUserSessionStore, newSessionId } from '../src/store/index.js';
import { SESSION_SCHEMA_VERSION, type SessionMeta, type SessionRecord } from '../src/store/types.js';
import { ScriptedProvider } from './scripted-provider.js';
import { type Cell, check, median, round, type TargetCheck, table } from './stats.js';

/** Options for {@link runPersistence}. */
export interface PersistenceOptions {
  historyLengths?: number[];
  /** Appends timed per history length (the median is reported). */
  appends?: number;
  /** Sessions stored for list() and the cold start. */
  sessions?: number;
}

/** Figures of part 3. */
export interface PersistenceFigures {
  appendMedianMs: { messages: number; ms: number }[];
  /** Longest history's median over the shortest's. */
  appendRatio: number;
  sessions: number;
  /** Setup: writing the sessions, then binding a chat to each (all at once). */
  seedSessionsSeconds: number;
  seedChatsSeconds: number;
  listMs: number;
  listValid: number;
  coldStartMs: number;
  /** First message to a chat bound before the restart, until its reply was delivered. */
  firstReplyMs: number;
  /** Messages of that chat's session after the reply (6 when the stored session was resumed). */
  resumedMessages: number;
  targets: TargetCheck[];
}

const TEXT = 'The session keeps its history in a small record and appends each turn to a log. ';

function message(i: number, role: 'user' | 'assistant'): HistoryMessage {
  return {
    id: `m${i}`,
    role,
    content: [{ type: 'text', text: TEXT.repeat(role === 'user' ? 1 : 4) }],
    createdAt: new Date(1_700_000_000_000 + i * 1000).toISOString(),
    state: 'complete',
  };
}

function meta(id: string, count: number): SessionMeta {
  const now = new Date().toISOString();
  return {
    version: SESSION_SCHEMA_VERSION,
    id,
    name: `bench ${id.slice(0, 8)}`,
    owner: 'quiet:1',
    createdAt: now,
    updatedAt: now,
    permissionMode: 'default',
    contextState: {
      maxTokens: 1_000_000,
      usedTokens: count * 40,
      usedPercentage: 0,
      remainingPercentage: 100,
    },
    messageCount: count,
  };
}

function record(id: string, count: number): SessionRecord {
  const messages = Array.from({ length: count }, (_, i) => message(i, i % 2 === 0 ? 'user' : 'assistant'));
  return { ...meta(id, count), messages };
}

/** An adapter that starts and does nothing: the cold start measures the core and the stores. */
function quietAdapter(): ChatAdapter {
  const caps: ChatCapabilities = {
    maxMessageLength: 4000,
    // No pacing to wait for: the first-reply figure measures loading, not the platform.
    minEditIntervalMs: 1,
    dialect: markdown,
    nativeStream: false,
    buttonPayloadLimit: 64,
    typingIntervalMs: 0,
  };
  return {
    platform: 'quiet',
    capabilities: () => caps,
    start: async () => {},
    stop: async () => {},
    send: async () => ({ messageId: '1' }),
    edit: async () => {},
    delete: async () => {},
    typing: async () => {},
  };
}

/** Runs part 3 in a fresh temp directory, removed afterwards. */
export async function runPersistence(options: PersistenceOptions = {}): Promise<PersistenceFigures> {
  const lengths = options.historyLengths ?? [10, 1000, 10_000];
  const appends = options.appends ?? 15;
  const sessions = options.sessions ?? 10_000;
  const root = await mkdtemp(join(tmpdir(), 'switchboard-bench-'));
  try {
    // Persisting one turn (a user message and a reply) at each history length.
    const turnStore = createUserSessionStore(join(root, 'turns'));
    const appendMedianMs: PersistenceFigures['appendMedianMs'] = [];
    // Warm-up, untimed: the first writes of a process pay for JIT and directory setup.
    const warm = newSessionId();
    await turnStore.create(record(warm, 10));
    for (let k = 0; k < 10; k++) await turnStore.append(warm, [message(10 + k, 'user')], meta(warm, 11 + k));
    for (const n of lengths) {
      const id = newSessionId();
      await turnStore.create(record(id, n));
      const times: number[] = [];
      let count = n;
      for (let k = 0; k < appends; k++) {
        const turn = [message(count, 'user'), message(count + 1, 'assistant')];
        count += 2;
        const t = performance.now();
        await turnStore.append(id, turn, meta(id, count));
        times.push(performance.now() - t);
      }
      appendMedianMs.push({ messages: n, ms: round(median(times), 3) });
    }
    await turnStore.flush();
    const shortest = appendMedianMs[0]!.ms;
    const longest = appendMedianMs[appendMedianMs.length - 1]!.ms;
    const appendRatio = round(longest / shortest, 2);

    // Many stored sessions, each bound to a chat, for list() and the cold start.
    const dataDir = join(root, 'data');
    const seedStart = performance.now();
    const store = createUserSessionStore(join(dataDir, 'sessions'));
    const state = createBotStateStore(dataDir);
    const ids = Array.from({ length: sessions }, () => newSessionId());
    for (let i = 0; i < ids.length; i += 200) {
      await Promise.all(ids.slice(i, i + 200).map((id) => store.create(record(id, 4))));
    }
    await store.flush();
    const seedSessionsSeconds = round((performance.now() - seedStart) / 1000, 1);
    const chatsStart = performance.now();
    await Promise.all(
      ids.map((id, i) => state.setChat(`quiet:${i}`, { sessionId: id, updatedAt: new Date().toISOString() })),
    );
    await state.flush();
    const seedChatsSeconds = round((performance.now() - chatsStart) / 1000, 1);

    // list() on a store that has read nothing yet, as after a restart.
    const fresh = createUserSessionStore(join(dataDir, 'sessions'));
    let t = performance.now();
    const listed = await fresh.list();
    const listMs = round(performance.now() - t, 1);
    const listValid = listed.filter((e) => e.outcome.status === 'valid').length;

    // Cold start: stores and the core built from scratch over the data directory.
    t = performance.now();
    const bot = createBot({
      adapters: [quietAdapter()],
      sessions: createSessionFactory({
        provider: new ScriptedProvider({ replyChars: 10, deltaChars: 10, intervalMs: 1 }),
        sessionStore: createUserSessionStore(join(dataDir, 'sessions')),
        workspace: join(root, 'workspace'),
      }),
      stores: { state: createBotStateStore(dataDir) },
      access: { allowedUsers: ['quiet:1'] },
    });
    await bot.start();
    const coldStartMs = round(performance.now() - t, 1);
    // The first message to a chat bound before the restart: binding looked up, session loaded, reply sent.
    t = performance.now();
    await bot.dispatch({
      type: 'message',
      chat: `quiet:${sessions - 1}`,
      user: { id: '1', name: 'Ada' },
      text: 'hello again',
      messageId: 'm1',
    });
    await bot.idle();
    const firstReplyMs = round(performance.now() - t, 1);
    await bot.stop();
    // The reply went to the stored session (4 messages before, a user message and a reply after).
    const resumed = await createUserSessionStore(join(dataDir, 'sessions')).load(ids[sessions - 1]!);
    const resumedMessages = resumed.status === 'valid' ? resumed.record.messages.length : 0;

    return {
      appendMedianMs,
      appendRatio,
      sessions,
      seedSessionsSeconds,
      seedChatsSeconds,
      listMs,
      listValid,
      coldStartMs,
      firstReplyMs,
      resumedMessages,
      targets: [
        check('append ratio longest/shortest', appendRatio, '< 3', appendRatio < 3),
        check(`list() of ${sessions} ms`, listMs, '< 1000', listMs < 1000 && listValid === sessions),
        check(`cold start over ${sessions} sessions ms`, coldStartMs, '< 2000', coldStartMs < 2000),
      ],
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** The table printed for part 3. */
export function persistenceTable(f: PersistenceFigures): string {
  const rows: Cell[][] = [
    ...f.appendMedianMs.map(
      (a) => [`persist one turn at ${a.messages} messages (median ms)`, a.ms] as Cell[],
    ),
    ['ratio longest / shortest', f.appendRatio],
    [`list() of ${f.sessions} sessions (ms)`, f.listMs],
    ['  valid entries', f.listValid],
    [`cold start over ${f.sessions} sessions (ms)`, f.coldStartMs],
    ['first reply after the cold start (ms)', f.firstReplyMs],
    ['  messages in the resumed session (4 + 2 expected)', f.resumedMessages],
    [`(setup: writing ${f.sessions} sessions, s)`, f.seedSessionsSeconds],
    [`(setup: binding ${f.sessions} chats at once, s)`, f.seedChatsSeconds],
  ];
  return table(['persistence', 'value'], rows);
}
