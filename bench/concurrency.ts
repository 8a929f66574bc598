/**
 * Part 2: many chats streaming at once through the real bot core (createBot,
 * sessions, outbox, file stores in a temp directory) with an instant
 * in-memory platform and an in-process scripted provider, on the real clock.
 * Measures CPU per 1,000 deltas, event-loop delay p99 and heap per active
 * and per idle session; then heap per chat with many idle chats.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { type Bot, createBot } from '../src/bot/index.js';
import { createSessionFactory } from '../src/session/factory.js';
import { createBotStateStore, createUserSessionStore } from '../src/store/index.js';
import { MemoryAdapter } from './memory-adapter.js';
import { ScriptedProvider } from './scripted-provider.js';
import { type Cell, check, round, type TargetCheck, table } from './stats.js';

/** Options for {@link runConcurrency}. */
export interface ConcurrencyOptions {
  /** Chats streaming at once (default 1,000). */
  streams?: number;
  /** Idle chats held at the end (default 10,000). */
  idleChats?: number;
  /** Reply length and pace of each stream (default 800 chars in 8-char deltas every 40 ms: ~50 tokens/s). */
  replyChars?: number;
  deltaChars?: number;
  intervalMs?: number;
  /** Sessions leave memory after this idle time (default 1,000 ms, so the run stays short). */
  idleReleaseMs?: number;
  /** Smaller loads measured first, each in a fresh core (default 1/8, 1/4 and 1/2 of `streams`). */
  levels?: number[];
}

/** Figures of part 2. */
export interface ConcurrencyFigures {
  streams: number;
  deltas: number;
  wallSeconds: number;
  cpuMsPer1000Deltas: number;
  eventLoopP99Ms: number;
  eventLoopMaxMs: number;
  heapPerActiveKB: number;
  heapPerIdleLoadedKB: number;
  heapPerIdleReleasedKB: number;
  idleChats: number;
  heapPerIdleChatKB: number;
  /** First turns of new chats (a short reply each), per second, while the idle chats were added. */
  newChatTurnsPerSecond: number;
  /** CPU and event-loop delay at the smaller loads. */
  levels: LoadLevel[];
  repliesWhole: number;
  platformCalls: number;
  targets: TargetCheck[];
}

/** `global.gc`, exposed at run time when node was started without --expose-gc. */
function gcFunction(): () => void {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (typeof existing === 'function') return existing;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

async function heapAfterGc(gc: () => void): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
  return process.memoryUsage().heapUsed;
}

function waitFor(predicate: () => boolean, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = () => {
      if (predicate()) resolve();
      else if (Date.now() - started > timeoutMs) reject(new Error('concurrency bench: timed out'));
      else setTimeout(poll, 20);
    };
    poll();
  });
}

async function submitAll(bot: Bot, from: number, to: number, run: string): Promise<void> {
  const jobs: Promise<void>[] = [];
  for (let i = from; i < to; i++) {
    jobs.push(
      bot.dispatch({
        type: 'message',
        chat: `mem:${i}`,
        user: { id: '1', name: 'Ada' },
        text: `Tell me about switchboard (${run} ${i})`,
        messageId: `${run}-${i}`,
        deliveryId: `${run}-${i}`,
      }),
    );
  }
  await Promise.all(jobs);
}

interface World {
  bot: Bot;
  adapter: MemoryAdapter;
  provider: ScriptedProvider;
  close(): Promise<void>;
}

/** A bot core over file stores in a fresh temp directory, the memory platform and the scripted provider. */
async function world(options: ConcurrencyOptions): Promise<World> {
  const root = await mkdtemp(join(tmpdir(), 'switchboard-bench-'));
  const adapter = new MemoryAdapter();
  const provider = new ScriptedProvider({
    replyChars: options.replyChars ?? 800,
    deltaChars: options.deltaChars ?? 8,
    intervalMs: options.intervalMs ?? 40,
  });
  const bot = createBot({
    adapters: [adapter],
    sessions: createSessionFactory({
      provider,
      sessionStore: createUserSessionStore(join(root, 'sessions')),
      workspace: join(root, 'workspace'),
    }),
    stores: { state: createBotStateStore(root) },
    access: { allowedUsers: ['mem:1'] },
    limits: { idleReleaseMs: options.idleReleaseMs ?? 1000, queueLimit: 20 },
  });
  await bot.start();
  return {
    bot,
    adapter,
    provider,
    async close() {
      await bot.stop().catch(() => undefined);
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** Event-loop delay and CPU of one load level. */
export interface LoadLevel {
  streams: number;
  deltas: number;
  cpuMsPer1000Deltas: number;
  eventLoopP99Ms: number;
  wallSeconds: number;
}

/** Streams `streams` chats at once through a fresh core; returns CPU and event-loop figures. */
async function loadLevel(streams: number, options: ConcurrencyOptions): Promise<LoadLevel> {
  const w = await world(options);
  try {
    const loop = monitorEventLoopDelay({ resolution: 10 });
    const cpu0 = process.cpuUsage();
    const wall0 = Date.now();
    loop.enable();
    await submitAll(w.bot, 0, streams, 'l');
    await w.bot.idle();
    loop.disable();
    const cpu = process.cpuUsage(cpu0);
    return {
      streams,
      deltas: w.provider.deltas,
      cpuMsPer1000Deltas: round((cpu.user + cpu.system) / 1000 / (w.provider.deltas / 1000), 1),
      eventLoopP99Ms: round(loop.percentile(99) / 1e6, 1),
      wallSeconds: round((Date.now() - wall0) / 1000, 1),
    };
  } finally {
    await w.close();
  }
}

/** Runs part 2 in fresh temp directories, removed afterwards. */
export async function runConcurrency(options: ConcurrencyOptions = {}): Promise<ConcurrencyFigures> {
  const streams = options.streams ?? 1000;
  const idleChats = Math.max(streams, options.idleChats ?? 10_000);
  const replyChars = options.replyChars ?? 800;
  const idleReleaseMs = options.idleReleaseMs ?? 1000;
  const gc = gcFunction();
  // Smaller loads first, each in its own core, to show where the event loop stays responsive.
  const levels: LoadLevel[] = [];
  for (const n of options.levels ?? [
    Math.round(streams / 8),
    Math.round(streams / 4),
    Math.round(streams / 2),
  ]) {
    if (n > 0 && n < streams) levels.push(await loadLevel(n, options));
  }
  const { bot, adapter, provider, close } = await world(options);
  try {
    const base = await heapAfterGc(gc);

    // 1. Every chat streams at once.
    const loop = monitorEventLoopDelay({ resolution: 10 });
    const cpu0 = process.cpuUsage();
    const wall0 = Date.now();
    loop.enable();
    await submitAll(bot, 0, streams, 'a');
    // Mid-stream: every chat has a reply on screen and the provider is half way.
    const perReply = Math.ceil(replyChars / (options.deltaChars ?? 8));
    await waitFor(
      () => adapter.lastLength.size >= streams && provider.deltas >= (streams * perReply) / 2,
      300_000,
    );
    loop.disable();
    const active = await heapAfterGc(gc);
    loop.enable();
    await bot.idle();
    loop.disable();
    const cpu = process.cpuUsage(cpu0);
    const wallSeconds = round((Date.now() - wall0) / 1000, 1);
    const deltas = provider.deltas;
    const repliesWhole = [...adapter.lastLength.values()].filter((n) => n >= replyChars).length;
    const loaded = await heapAfterGc(gc);
    // 2. Idle: the sessions leave memory after idleReleaseMs.
    await new Promise((r) => setTimeout(r, idleReleaseMs * 2 + 500));
    const released = await heapAfterGc(gc);

    // 3. Many idle chats: the rest take one short turn each, in waves, then go idle.
    provider.options = { ...provider.options, replyChars: 40, deltaChars: 8, intervalMs: 5 };
    const newChats0 = Date.now();
    for (let from = streams; from < idleChats; from += streams) {
      await submitAll(bot, from, Math.min(idleChats, from + streams), 'b');
      await bot.idle();
    }
    const newChatTurnsPerSecond = round((idleChats - streams) / ((Date.now() - newChats0) / 1000), 1);
    await new Promise((r) => setTimeout(r, idleReleaseMs * 2 + 500));
    const idleAll = await heapAfterGc(gc);

    const kb = (bytes: number, n: number) => round(bytes / n / 1024, 1);
    const p99 = round(loop.percentile(99) / 1e6, 1);
    const figures = {
      streams,
      deltas,
      wallSeconds,
      cpuMsPer1000Deltas: round((cpu.user + cpu.system) / 1000 / (deltas / 1000), 1),
      eventLoopP99Ms: p99,
      eventLoopMaxMs: round(loop.max / 1e6, 1),
      heapPerActiveKB: kb(active - base, streams),
      heapPerIdleLoadedKB: kb(loaded - base, streams),
      heapPerIdleReleasedKB: kb(released - base, streams),
      idleChats,
      heapPerIdleChatKB: kb(idleAll - base, idleChats),
      newChatTurnsPerSecond,
      levels,
      repliesWhole,
      platformCalls: adapter.sends + adapter.edits,
    };
    return {
      ...figures,
      targets: [
        check(`event-loop p99 at ${streams} streams ms`, p99, '< 50', p99 < 50),
        check(
          'heap per idle session KB',
          figures.heapPerIdleReleasedKB,
          '< 50',
          figures.heapPerIdleReleasedKB < 50,
        ),
        check(
          `heap per chat with ${idleChats} idle KB`,
          figures.heapPerIdleChatKB,
          '< 50',
          figures.heapPerIdleChatKB < 50,
        ),
        check('replies delivered whole', repliesWhole, `= ${streams}`, repliesWhole === streams),
      ],
    };
  } finally {
    await close();
  }
}

/** The table printed for part 2. */
export function concurrencyTable(f: ConcurrencyFigures): string {
  const rows: Cell[][] = [
    ['chats streaming at once', f.streams],
    ['deltas streamed', f.deltas],
    ['wall time (s)', f.wallSeconds],
    ['CPU ms per 1,000 deltas', f.cpuMsPer1000Deltas],
    ['event-loop delay p99 (ms)', f.eventLoopP99Ms],
    ['event-loop delay max (ms)', f.eventLoopMaxMs],
    ['heap per active session (KB)', f.heapPerActiveKB],
    ['heap per idle session, still loaded (KB)', f.heapPerIdleLoadedKB],
    ['heap per idle session, released (KB)', f.heapPerIdleReleasedKB],
    [`heap per chat, ${f.idleChats} idle chats (KB)`, f.heapPerIdleChatKB],
    ['first turns of new chats per second (filling up)', f.newChatTurnsPerSecond],
    ['replies delivered whole', f.repliesWhole],
    ['platform calls (sends + edits)', f.platformCalls],
  ];
  const levelRows: Cell[][] = [
    ...f.levels.map(
      (l) => [l.streams, l.deltas, l.cpuMsPer1000Deltas, l.eventLoopP99Ms, l.wallSeconds] as Cell[],
    ),
    [f.streams, f.deltas, f.cpuMsPer1000Deltas, f.eventLoopP99Ms, f.wallSeconds],
  ];
  return `${table(['concurrency', 'value'], rows)}\n\nBy load (each level in a fresh core)\n${table(
    ['streams at once', 'deltas', 'CPU ms / 1,000 deltas', 'event-loop p99 ms', 'wall s'],
    levelRows,
  )}`;
}
