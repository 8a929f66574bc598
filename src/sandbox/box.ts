/**
 * One running file helper (inside bubblewrap, or plain when the sandbox is
 * off) and the JSON-lines conversation with it. Every byte it sends is
 * treated as hostile: an answer line is bounded, a broken one ends the
 * sandbox, and nothing it sends can throw in the bot.
 */
import type { ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { Clock } from '../clock.js';
import { SwitchboardError } from '../errors.js';
import { removeWhenEmpty } from './command.js';
import { helperSource } from './helper.js';
import { type SandboxSpawn, spawnSandboxed } from './spawn.js';

/** How long a closing sandbox may take to end on its own before it is killed. */
export const BOX_CLOSE_GRACE_MS = 2_000;
/** Most stderr kept to explain a sandbox that ended. */
const STDERR_KEEP = 2_000;
/**
 * The longest answer line accepted from the helper, in characters. The
 * largest honest one is a 50 MB SendFile in base64 (about 67 MB); anything
 * longer is hostile or broken, and the sandbox is killed.
 */
export const MAX_ANSWER_CHARS = 80 * 1024 * 1024;

/** How to start a box: its process (the arguments end with the helper's `node -e` call) and clock. */
export type BoxLaunch = Omit<SandboxSpawn, 'stdin'> & {
  clock: Clock;
  /** Default {@link MAX_ANSWER_CHARS}. */
  maxAnswerChars?: number;
};

/** The `node -e` arguments that start the helper for `workspace`. */
export function helperArgs(nodePath: string, workspace: string): string[] {
  return [nodePath, '--max-old-space-size=512', '-e', helperSource(), workspace];
}

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
}

/** An error the helper reported: `code` is an errno name (`ENOENT`) or a SwitchboardError code. */
export class HelperError extends Error {
  override readonly name = 'HelperError';
  /** Errno name or error code from inside the sandbox. */
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

/** A running helper and the requests in flight to it. */
export class SandboxBox {
  readonly #child: ChildProcess;
  readonly #kill: () => void;
  readonly #stdin: Writable;
  readonly #pending = new Map<number, Pending>();
  readonly #clock: Clock;
  readonly #cgroup: BoxLaunch['cgroup'];
  #nextId = 1;
  /** The helper's unfinished answer line, in the pieces it arrived in, and their length. */
  #stdout: string[] = [];
  #stdoutChars = 0;
  readonly #maxAnswerChars: number;
  #stderr = '';
  #ended: string | undefined;
  /** Settles when the helper's process has exited. */
  readonly exited: Promise<void>;
  /** Resolves when the helper has started and reads requests; rejects if it ended first. */
  readonly ready: Promise<void>;
  #markReady: (() => void) | undefined;
  #failReady: ((err: Error) => void) | undefined;

  constructor(launch: BoxLaunch) {
    this.#clock = launch.clock;
    this.#cgroup = launch.cgroup;
    this.#maxAnswerChars = launch.maxAnswerChars ?? MAX_ANSWER_CHARS;
    this.ready = new Promise((resolve, reject) => {
      this.#markReady = resolve;
      this.#failReady = reject;
    });
    this.ready.catch(() => undefined);
    const spawned = spawnSandboxed({ ...launch, stdin: 'pipe' });
    this.#child = spawned.child;
    this.#kill = spawned.kill;
    this.#stdin = this.#child.stdin as Writable;
    const stdout = this.#child.stdout as Readable;
    const stderr = this.#child.stderr as Readable;
    stdout.setEncoding('utf8');
    stderr.setEncoding('utf8');
    // Every byte from inside is untrusted: a handler never throws, and a broken answer ends the sandbox.
    stdout.on('data', (chunk: string) => {
      try {
        this.#onStdout(chunk);
      } catch (err) {
        this.#fail(`its answer could not be read (${(err as Error).message})`);
      }
    });
    stderr.on('data', (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-STDERR_KEEP);
    });
    // A helper that died mid-request must not crash the bot with EPIPE.
    this.#stdin.on('error', () => undefined);
    stdout.on('error', () => undefined);
    stderr.on('error', () => undefined);
    this.exited = new Promise((resolve) => {
      this.#child.on('error', (err) => {
        this.#end(`it could not be started (${err.message})`);
        resolve();
      });
      this.#child.on('close', (code, signal) => {
        this.#end(signal ? `killed by ${signal}` : `exit code ${code}`);
        removeWhenEmpty(this.#cgroup);
        resolve();
      });
    });
  }

  /** True until the helper has exited. */
  get alive(): boolean {
    return this.#ended === undefined;
  }

  /** Sends one request. */
  request<T>(op: string, payload: Record<string, unknown>): Promise<T> & { id: number } {
    const id = this.#nextId++;
    const promise = new Promise<T>((resolve, reject) => {
      if (this.#ended !== undefined) {
        reject(this.#endedError());
        return;
      }
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.#stdin.write(`${JSON.stringify({ ...payload, id, op })}\n`);
    });
    return Object.assign(promise, { id });
  }

  /** Kills the sandbox at once (a runaway request); pending requests fail. */
  kill(): void {
    this.#kill();
  }

  /** Ends the sandbox and everything in it; resolves when it is gone. */
  async close(): Promise<void> {
    if (this.#ended === undefined) {
      this.#stdin.end();
      const timer = this.#clock.setTimeout(() => this.kill(), BOX_CLOSE_GRACE_MS);
      await this.exited;
      this.#clock.clearTimeout(timer);
    }
    await this.exited;
  }

  #onStdout(chunk: string): void {
    // A line end is looked for in the new piece only: a file read (SendFile, Read) answers in one
    // line of megabytes, and searching the whole line again for every piece took seconds.
    let start = 0;
    for (let nl = chunk.indexOf('\n'); nl >= 0; nl = chunk.indexOf('\n', start)) {
      if (this.#stdoutChars + nl - start > this.#maxAnswerChars) {
        this.#fail('it sent an answer over the size limit');
        return;
      }
      this.#stdout.push(chunk.slice(start, nl));
      start = nl + 1;
      const line = this.#stdout.join('');
      this.#stdout = [];
      this.#stdoutChars = 0;
      let msg: {
        id?: unknown;
        ok?: boolean;
        result?: unknown;
        chunk?: string;
        code?: string;
        message?: string;
      };
      try {
        msg = JSON.parse(line);
      } catch {
        this.#fail('it sent a line that is not JSON');
        return;
      }
      if (typeof msg !== 'object' || msg === null || typeof msg.id !== 'number') {
        this.#fail('it sent an answer without an id');
        return;
      }
      if (msg.id === 0) {
        this.#markReady?.();
        continue;
      }
      const pending = this.#pending.get(msg.id);
      if (!pending) continue;
      this.#pending.delete(msg.id);
      if (msg.ok) pending.resolve(msg.result);
      else
        pending.reject(
          new HelperError(String(msg.code ?? 'TOOL_FAILED'), String(msg.message ?? 'the sandbox failed')),
        );
    }
    if (start < chunk.length) {
      this.#stdoutChars += chunk.length - start;
      if (this.#stdoutChars > this.#maxAnswerChars) {
        this.#fail('it sent an answer over the size limit');
        return;
      }
      this.#stdout.push(chunk.slice(start));
    }
  }

  /** Ends a sandbox that broke the protocol: its requests fail with `why`, and it is killed. */
  #fail(why: string): void {
    this.#stdout = [];
    this.#stdoutChars = 0;
    this.#end(why);
    this.kill();
  }

  #end(why: string): void {
    this.#ended ??= why;
    const error = this.#endedError();
    this.#failReady?.(error);
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }

  #endedError(): SwitchboardError {
    const stderr = this.#stderr.trim();
    return new SwitchboardError(
      'TOOL_FAILED',
      `the sandbox ended (${this.#ended})${stderr ? `: ${stderr.split('\n').slice(-3).join(' ')}` : ''}. The next tool call starts a new one.`,
      { detail: { ended: this.#ended } },
    );
  }
}
