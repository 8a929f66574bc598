/**
 * The ready bot as a child process, exactly as `npm start` runs it
 * (the compiled `dist/src/main.js`), with its environment given explicitly and its
 * log lines (stdout) and stderr captured, so a test can SIGKILL it mid-turn
 * and start it again over the same data directory.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic.js';
import { type FakeTelegram, startFakeTelegram } from '../fakes/telegram/index.js';
import { BUILT_MAIN } from '../helpers/dist.js';
import { TG_API_KEY, TG_TOKEN } from './telegram-world.js';

/** A running (or exited) child bot. */
export interface ChildBot {
  readonly child: ChildProcess;
  /** Log lines written so far (pino JSON on stdout). */
  readonly lines: string[];
  readonly stderr: string[];
  /** Resolves with the exit code or signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once a log line matches `pattern`. */
  waitForLog(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** SIGKILL (no clean-up of any kind), then waits for the exit. */
  kill(): Promise<void>;
}

/** Starts `dist/src/main.js` with `env` (nothing else of this process's environment but PATH and HOME). */
export function startChildBot(env: Record<string, string>, cwd: string): ChildBot {
  const child = spawn(process.execPath, [BUILT_MAIN], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? cwd, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const stderr: string[] = [];
  const waiters = new Set<() => void>();
  let partial = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    partial += chunk;
    const parts = partial.split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts.filter((l) => l.length > 0));
    for (const w of [...waiters]) w();
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr.push(chunk);
    for (const w of [...waiters]) w();
  });
  const exited = once(child, 'exit').then(([code, signal]) => {
    for (const w of [...waiters]) w();
    return { code: code as number | null, signal: signal as NodeJS.Signals | null };
  });
  let done = false;
  void exited.then(() => {
    done = true;
  });
  return {
    child,
    lines,
    stderr,
    exited,
    waitForLog(pattern, timeoutMs = 45_000) {
      return new Promise((resolvePromise, reject) => {
        const check = () => {
          const hit = lines.find((l) => pattern.test(l));
          if (hit !== undefined) {
            waiters.delete(check);
            clearTimeout(timer);
            resolvePromise(hit);
          } else if (done) {
            waiters.delete(check);
            clearTimeout(timer);
            reject(new Error(`bot exited before logging ${pattern}: ${stderr.join('')}`));
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`bot did not log ${pattern} within ${timeoutMs} ms; stderr: ${stderr.join('')}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async kill() {
      if (!done) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** One test's fakes, data root and environment for child bots (see {@link useChildBotWorld}). */
export interface ChildBotWorld {
  telegram: FakeTelegram;
  anthropic: FakeAnthropic;
  root: string;
  /** The ready bot's environment: both fakes, the data directory and workspace in `root`, Ann and Bob allowed. */
  env: Record<string, string>;
  /** Starts a child bot over this world (killed after the test) and waits for its start line. */
  start(): Promise<ChildBot>;
}

/**
 * The fake Bot API and Messages API, a temporary root and the environment
 * for child bots of a test file; everything is killed, closed and removed
 * after each test.
 */
export function useChildBotWorld(prefix: string): { open(): Promise<ChildBotWorld> } {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });
  return {
    async open() {
      const telegram = await startFakeTelegram({ token: TG_TOKEN });
      closers.push(() => telegram.close());
      const anthropic = await startFakeAnthropic();
      closers.push(() => anthropic.close());
      const root = await mkdtemp(join(tmpdir(), prefix));
      closers.push(() => rm(root, { recursive: true, force: true }));
      const env = {
        ANTHROPIC_API_KEY: TG_API_KEY,
        ANTHROPIC_BASE_URL: anthropic.url,
        TELEGRAM_BOT_TOKEN: TG_TOKEN,
        TELEGRAM_API_ROOT: telegram.url,
        SWITCHBOARD_DATA_DIR: join(root, 'data'),
        SWITCHBOARD_WORKSPACE: join(root, 'workspace'),
        SWITCHBOARD_ALLOWED_USERS: 'telegram:11,telegram:22',
        SWITCHBOARD_LOG_LEVEL: 'debug',
      };
      return {
        telegram,
        anthropic,
        root,
        env,
        async start() {
          const bot = startChildBot(env, root);
          closers.push(() => bot.kill());
          await bot.waitForLog(/switchboard started/);
          return bot;
        },
      };
    },
  };
}
