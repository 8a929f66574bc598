/**
 * One running sandbox: the helper process (inside bubblewrap, or plain when
 * the sandbox is off) and the JSON-lines conversation with it. Ending it
 * ends everything started in it: with bubblewrap the helper is the PID
 * namespace's main process, so its exit takes every other process along.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import type { Clock } from '../clock.js';
import { SwitchboardError } from '../errors.js';
import { helperSource } from './helper.js';
import type { PidsCgroup } from './pids-cgroup.js';

/** How long a closing sandbox may take to end on its own before it is killed. */
export const BOX_CLOSE_GRACE_MS = 2_000;
/** Most stderr kept to explain a sandbox that ended. */
const STDERR_KEEP = 2_000;

/** How to start a box. */
export interface BoxLaunch {
  /** The program and its arguments, which end with the helper's `node -e` call. */
  command: string;
  args: string[];
  /** Environment of the launched program (bubblewrap clears it again inside). */
  env: Record<string, string>;
  cwd: string;
  clock: Clock;
  cgroup?: PidsCgroup | undefined;
}

/** The `node -e` arguments that start the helper for `workspace`. */
export function helperArgs(nodePath: string, workspace: string): string[] {
  return [nodePath, '--max-old-space-size=512', '-e', helperSource(), workspace];
}

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
  onChunk: ((chunk: string) => void) | undefined;
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
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #pending = new Map<number, Pending>();
  readonly #clock: Clock;
  readonly #cgroup: PidsCgroup | undefined;
  #nextId = 1;
  /** The helper's unfinished answer line, in the pieces it arrived in. */
  #stdout: string[] = [];
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
    this.ready = new Promise((resolve, reject) => {
      this.#markReady = resolve;
      this.#failReady = reject;
    });
    this.ready.catch(() => undefined);
    const [command, args] = launch.cgroup
      ? // The shell joins the cgroup, then becomes the sandbox: nothing forks before the limit holds.
        [
          '/bin/sh',
          ['-c', 'echo $$ > "$0" && exec "$@"', launch.cgroup.procsFile, launch.command, ...launch.args],
        ]
      : [launch.command, launch.args];
    this.#child = spawn(command as string, args as string[], {
      env: launch.env,
      cwd: launch.cwd,
      stdio: 'pipe',
    });
    this.#child.stdout.setEncoding('utf8');
    this.#child.stderr.setEncoding('utf8');
    this.#child.stdout.on('data', (chunk: string) => this.#onStdout(chunk));
    this.#child.stderr.on('data', (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-STDERR_KEEP);
    });
    // A helper that died mid-request must not crash the bot with EPIPE.
    this.#child.stdin.on('error', () => undefined);
    this.exited = new Promise((resolve) => {
      this.#child.on('error', (err) => {
        this.#end(`it could not be started (${err.message})`);
        resolve();
      });
      this.#child.on('close', (code, signal) => {
        this.#end(signal ? `killed by ${signal}` : `exit code ${code}`);
        resolve();
      });
    });
  }

  /** True until the helper has exited. */
  get alive(): boolean {
    return this.#ended === undefined;
  }

  /** Sends one request; `onChunk` receives streamed output (Bash). */
  request<T>(
    op: string,
    payload: Record<string, unknown>,
    onChunk?: (chunk: string) => void,
  ): Promise<T> & { id: number } {
    const id = this.#nextId++;
    const promise = new Promise<T>((resolve, reject) => {
      if (this.#ended !== undefined) {
        reject(this.#endedError());
        return;
      }
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject, onChunk });
      this.#child.stdin.write(`${JSON.stringify({ ...payload, id, op })}\n`);
    });
    return Object.assign(promise, { id });
  }

  /** Asks the helper to kill the process group of request `target` (a running command). */
  killCommand(target: number): void {
    if (this.#ended === undefined)
      this.#child.stdin.write(`${JSON.stringify({ id: 0, op: 'kill', target })}\n`);
  }

  /** Kills the sandbox at once (a runaway request); pending requests fail. */
  kill(): void {
    this.#child.kill('SIGKILL');
  }

  /** Ends the sandbox and everything in it; resolves when it is gone. */
  async close(): Promise<void> {
    if (this.#ended === undefined) {
      this.#child.stdin.end();
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
      this.#stdout.push(chunk.slice(start, nl));
      start = nl + 1;
      const line = this.#stdout.join('');
      this.#stdout = [];
      let msg: {
        id: number;
        ok?: boolean;
        result?: unknown;
        chunk?: string;
        code?: string;
        message?: string;
      };
      try {
        msg = JSON.parse(line);
      } catch {
        continue;
      }
      if (msg.id === 0) {
        this.#markReady?.();
        continue;
      }
      const pending = this.#pending.get(msg.id);
      if (!pending) continue;
      if (msg.chunk !== undefined) {
        pending.onChunk?.(msg.chunk);
        continue;
      }
      this.#pending.delete(msg.id);
      if (msg.ok) pending.resolve(msg.result);
      else pending.reject(new HelperError(msg.code ?? 'TOOL_FAILED', msg.message ?? 'the sandbox failed'));
    }
    if (start < chunk.length) this.#stdout.push(chunk.slice(start));
  }

  #end(why: string): void {
    this.#ended ??= why;
    const error = this.#endedError();
    this.#failReady?.(error);
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
    this.#removeCgroup(0);
  }

  #removeCgroup(attempt: number): void {
    // The kernel empties the cgroup a moment after the last process exits.
    if (!this.#cgroup || this.#cgroup.remove() || attempt >= 20) return;
    this.#clock.setTimeout(() => this.#removeCgroup(attempt + 1), 100);
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
