/**
 * A chat turn's sandbox: the file tools of one turn share one helper
 * process, started when the turn opens (or on first use) and restarted if
 * something killed it; each Bash command runs in a sandbox of its own
 * (command.ts). {@link SandboxTurn.close} ends the helper.
 */
import { realpath } from 'node:fs/promises';
import type { Clock } from '../clock.js';
import { SwitchboardError } from '../errors.js';
import type { SandboxBox } from './box.js';
import type { ExecOptions, ExecOutcome } from './command.js';

export { EXEC_EXIT_GRACE_MS, type ExecOptions, type ExecOutcome } from './command.js';

/**
 * What a turn asks of the sandbox that opened it (`Sandbox` in sandbox.ts):
 * a file helper for a workspace, and commands run under the sandbox's limits.
 */
export interface TurnHost {
  /** Starts a file helper for `workspace` (a real path). */
  launch(workspace: string, clock: Clock): Promise<{ box: SandboxBox }>;
  /** Runs `bash -c command` in `workspace` (a real path) under the sandbox's limits. */
  runCommand(
    workspace: string,
    command: string,
    options: ExecOptions & { clock: Clock },
  ): Promise<ExecOutcome>;
}

/** What {@link SandboxTurn} is built from. */
export interface SandboxTurnOptions {
  sandbox: TurnHost;
  cwd: string;
  clock: Clock;
  /** Called when a tool uses the file helper (not when warm() starts it). */
  onUse?: () => void;
}

/** The sandbox of one chat turn. */
export class SandboxTurn {
  readonly #sandbox: TurnHost;
  readonly #cwd: string;
  readonly #clock: Clock;
  readonly #onUse: (() => void) | undefined;
  #box: Promise<SandboxBox> | undefined;
  #closed = false;

  constructor(options: SandboxTurnOptions) {
    this.#sandbox = options.sandbox;
    this.#cwd = options.cwd;
    this.#clock = options.clock;
    this.#onUse = options.onUse;
  }

  /**
   * Starts the file helper now, beside the turn's first model request, so
   * the first tool call finds it running. A failure here is not reported:
   * the first tool call tries again and says why.
   */
  warm(): void {
    this.#ensureBox().catch(() => undefined);
  }

  /**
   * Sends a file operation to the helper. With `timeoutMs`, a request still
   * running then is stopped by killing the sandbox (a regular expression
   * cannot be interrupted any other way); the next call starts a new one.
   */
  async request<T>(op: string, payload: Record<string, unknown>, timeoutMs?: number): Promise<T> {
    this.#onUse?.();
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

  /** Runs `bash -c command` in a sandbox of its own, under the sandbox's limits, with a timeout and abort. */
  async exec(command: string, options: ExecOptions): Promise<ExecOutcome> {
    if (this.#closed) throw new SwitchboardError('ABORTED', 'The turn is over; its sandbox was closed.');
    return this.#sandbox.runCommand(await this.#workspace(), command, { ...options, clock: this.#clock });
  }

  /** Ends the helper; resolves when it is gone. */
  async close(): Promise<void> {
    this.#closed = true;
    const box = await this.#box?.catch(() => undefined);
    await box?.close();
  }

  async #ensureBox(): Promise<SandboxBox> {
    if (this.#closed) throw new SwitchboardError('ABORTED', 'The turn is over; its sandbox was closed.');
    // Set before any await, so two callers (warm() and the first tool) share one helper.
    this.#box ??= this.#start();
    const starting = this.#box;
    const current = await starting.catch(() => undefined);
    if (current?.alive) return current;
    if (this.#closed) throw new SwitchboardError('ABORTED', 'The turn is over; its sandbox was closed.');
    // Dead or never started: the first caller to see it starts a new one, the others wait for that.
    if (this.#box === starting) this.#box = this.#start();
    return this.#box;
  }

  async #workspace(): Promise<string> {
    try {
      return await realpath(this.#cwd);
    } catch (err) {
      throw new SwitchboardError(
        'TOOL_FAILED',
        `The workspace ${this.#cwd} does not exist or cannot be read; create it or point the session at another folder.`,
        { cause: err },
      );
    }
  }

  async #start(): Promise<SandboxBox> {
    const { box } = await this.#sandbox.launch(await this.#workspace(), this.#clock);
    // Time limits count from here, not from the process's start-up.
    await box.ready;
    return box;
  }
}
