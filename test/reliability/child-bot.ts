/**
 * The ready bot as a child process, exactly as `npm start` runs it
 * (the compiled `dist/src/main.js`), with its environment given explicitly and its
 * log lines (stdout) and stderr captured, so a test can SIGKILL it mid-turn
 * and start it again over the same data directory.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { BUILT_MAIN } from '../helpers/dist.js';

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
