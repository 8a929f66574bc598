/**
 * A chat turn's sandbox: the file tools and Bash of one turn share one
 * helper process, started on first use and restarted if something inside
 * killed it. {@link SandboxTurn.close} ends it and every process started in
 * it (a `setsid` job included).
 */
import { realpath } from 'node:fs/promises';
import type { Clock } from '../clock.js';
import { SwitchboardError } from '../errors.js';
import type { SandboxBox } from './box.js';
import type { Sandbox } from './sandbox.js';

/**
 * How long to keep reading after bash exits. What it wrote is already in the
 * pipe; a process that left the group (`setsid`) may keep the pipe open for
 * ever, and must not hold the turn with it.
 */
export const EXEC_EXIT_GRACE_MS = 250;

/** How a command ended, besides its own exit code. */
export interface ExecOutcome {
  code: number | null;
  signal: string | null;
  /** A process that left the command's group (setsid) still held its output. */
  detachedHolder: boolean;
  /** Set when the sandbox, not the command, ended it. */
  ended?: 'timeout' | 'aborted';
}

/** Options of one command. */
export interface ExecOptions {
  timeoutMs: number;
  signal: AbortSignal;
  onChunk(chunk: string): void;
}

/** What {@link SandboxTurn} is built from. */
export interface SandboxTurnOptions {
  sandbox: Sandbox;
  cwd: string;
  clock: Clock;
}

/** The sandbox of one chat turn. */
export class SandboxTurn {
  readonly #sandbox: Sandbox;
  readonly #cwd: string;
  readonly #clock: Clock;
  #box: Promise<SandboxBox> | undefined;
  #closed = false;

  constructor(options: SandboxTurnOptions) {
    this.#sandbox = options.sandbox;
    this.#cwd = options.cwd;
    this.#clock = options.clock;
  }

  /**
   * Sends a file operation to the helper. With `timeoutMs`, a request still
   * running then is stopped by killing the sandbox (a regular expression
   * cannot be interrupted any other way); the next call starts a new one.
   */
  async request<T>(op: string, payload: Record<string, unknown>, timeoutMs?: number): Promise<T> {
    const box = await this.#ensureBox();
    const pending = box.request<T>(op, payload);
    if (timeoutMs === undefined) return pending;
    let timedOut = false;
    const timer = this.#clock.setTimeout(() => {
      timedOut = true;
      box.kill();
    }, timeoutMs);
    try {
      return await pending;
    } catch (err) {
      if (timedOut) {
        throw new SwitchboardError('TOOL_FAILED', `it took over ${timeoutMs} ms and was stopped`, {
          cause: err,
          detail: { timedOut: true },
        });
      }
      throw err;
    } finally {
      this.#clock.clearTimeout(timer);
    }
  }

  /** Runs `bash -c command` inside, under the sandbox's limits, with a timeout and abort. */
  async exec(command: string, options: ExecOptions): Promise<ExecOutcome> {
    const refusal = await this.#sandbox.bashRefusal();
    if (refusal) throw new SwitchboardError('PERMISSION_DENIED', refusal);
    const box = await this.#ensureBox();
    // Stopped while the sandbox started: the command never runs.
    if (options.signal.aborted)
      throw new SwitchboardError('ABORTED', 'The command was not run: the turn was stopped.');
    const pending = box.request<Omit<ExecOutcome, 'ended'>>(
      'exec',
      { command, limits: this.#sandbox.limits, graceMs: EXEC_EXIT_GRACE_MS },
      options.onChunk,
    );
    let ended: ExecOutcome['ended'];
    const stop = (why: 'timeout' | 'aborted') => {
      ended ??= why;
      box.killCommand(pending.id);
    };
    const timer = this.#clock.setTimeout(() => stop('timeout'), options.timeoutMs);
    const onAbort = () => stop('aborted');
    options.signal.addEventListener('abort', onAbort, { once: true });
    try {
      const outcome = await pending;
      return ended ? { ...outcome, ended } : outcome;
    } finally {
      this.#clock.clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
    }
  }

  /** Ends the sandbox and everything started in it; resolves when it is gone. */
  async close(): Promise<void> {
    this.#closed = true;
    const box = await this.#box?.catch(() => undefined);
    await box?.close();
  }

  async #ensureBox(): Promise<SandboxBox> {
    if (this.#closed) throw new SwitchboardError('ABORTED', 'The turn is over; its sandbox was closed.');
    const current = await this.#box?.catch(() => undefined);
    if (current?.alive) return current;
    this.#box = this.#start();
    return this.#box;
  }

  async #start(): Promise<SandboxBox> {
    let workspace: string;
    try {
      workspace = await realpath(this.#cwd);
    } catch (err) {
      throw new SwitchboardError(
        'TOOL_FAILED',
        `The workspace ${this.#cwd} does not exist or cannot be read; create it or point the session at another folder.`,
        { cause: err },
      );
    }
    const { box } = await this.#sandbox.launch(workspace, this.#clock);
    // Time limits count from here, not from the process's start-up.
    await box.ready;
    return box;
  }
}
