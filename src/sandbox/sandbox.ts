/**
 * The sandbox of the agent's tools. {@link Sandbox} holds the settings and
 * finds out once whether bubblewrap works here (and if not, why);
 * {@link Sandbox.openTurn} gives a chat turn its own {@link SandboxTurn}:
 * a file helper for the turn, and a fresh sandbox for each command.
 */
import { accessSync, constants, realpathSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import type { Clock } from '../clock.js';
import { SwitchboardError } from '../errors.js';
import { helperArgs, SandboxBox } from './box.js';
import { type BwrapLayout, bwrapArgs } from './bwrap-args.js';
import { createSandboxCgroup } from './cgroup.js';
import { type ExecOptions, type ExecOutcome, limitedBash, removeWhenEmpty, runCommand } from './command.js';
import { diagnose, missingBinary, type SandboxProblem } from './diagnose.js';
import { seccompFilter } from './seccomp.js';
import {
  DEFAULT_SANDBOX_LIMITS,
  type SandboxLimits,
  type SandboxMode,
  type SandboxNetwork,
  type SandboxSettings,
  type SandboxStatus,
  sandboxEnv,
} from './settings.js';
import { spawnSandboxed } from './spawn.js';
import { SandboxTurn } from './turn.js';

/** Workspaces remembered as active (see {@link Sandbox.openTurn}). */
const MAX_ACTIVE_WORKSPACES = 1_000;

/** Finds `name` in PATH (and the usual system folders) once, as a real absolute path. */
function findBinary(name: string): string | undefined {
  const dirs = isAbsolute(name)
    ? ['']
    : [...(process.env.PATH ?? '').split(':'), '/usr/bin', '/bin', '/usr/local/bin'];
  for (const dir of dirs) {
    if (dir !== '' && !isAbsolute(dir)) continue;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return realpathSync(join(dir, name));
    } catch {
      // Not there.
    }
  }
  return undefined;
}

/**
 * The tools' sandbox for one bot or one library user.
 *
 * @example
 * const sandbox = new Sandbox({ mode: 'required', hidden: ['/srv/bot/data', '/srv/bot/.env'] });
 * const status = await sandbox.check(); // { state: 'on', network: 'none' }
 * const session = new InteractiveSession({ cwd, provider, sandbox });
 */
export class Sandbox {
  readonly mode: SandboxMode;
  readonly network: SandboxNetwork;
  readonly limits: SandboxLimits;
  readonly prestart: boolean;
  readonly #hidden: readonly string[];
  readonly #bwrapName: string;
  /** The resolved binary, once the probe found it: never looked up again. */
  #bwrap: string | undefined;
  readonly #seccomp = seccompFilter();
  #status: Promise<SandboxStatus> | undefined;
  /** Workspaces whose last turn used the file tools, oldest first: their next turns start the helper early. */
  readonly #active = new Set<string>();

  constructor(settings: SandboxSettings = {}) {
    this.mode = settings.mode ?? 'auto';
    this.network = settings.network ?? 'none';
    this.limits = { ...DEFAULT_SANDBOX_LIMITS, ...settings.limits };
    this.prestart = settings.prestart ?? true;
    this.#hidden = settings.hidden ?? [];
    this.#bwrapName = settings.bwrapPath ?? 'bwrap';
  }

  /**
   * Whether the sandbox is in force: `on`, `off` (the mode says so) or
   * `unavailable` with the cause and its fix. Tried once, then remembered.
   */
  check(): Promise<SandboxStatus> {
    this.#status ??= this.#probe();
    return this.#status;
  }

  /**
   * Throws (CONFIG_INVALID) when a sandbox for `workspace` would show the
   * bot's own files, the hidden paths, in a way that cannot be covered.
   */
  checkLayout(workspace: string): void {
    bwrapArgs(this.#layout(realpathSync(workspace)));
  }

  /**
   * A sandbox for one chat turn in workspace `cwd`; close it when the turn
   * ends. In a workspace whose last turn used the file tools (an active
   * chat), the helper starts at once, beside the turn's first model request;
   * a chat that only talks never starts one.
   */
  openTurn(cwd: string, clock: Clock): SandboxTurn {
    const turn = new SandboxTurn({ sandbox: this, cwd, clock, onUse: () => this.#markActive(cwd) });
    if (this.prestart && this.#active.has(cwd)) turn.warm();
    return turn;
  }

  #markActive(cwd: string): void {
    this.#active.delete(cwd);
    this.#active.add(cwd);
    // Bounded: the oldest workspaces lose their early start first.
    for (const oldest of this.#active) {
      if (this.#active.size <= MAX_ACTIVE_WORKSPACES) break;
      this.#active.delete(oldest);
    }
  }

  /**
   * Starts a file helper for `workspace` (a real path): inside bubblewrap
   * when the sandbox is on, as a plain process otherwise.
   */
  async launch(workspace: string, clock: Clock): Promise<{ box: SandboxBox; sandboxed: boolean }> {
    const status = await this.check();
    const helper = helperArgs(process.execPath, workspace);
    if (status.state !== 'on' || !this.#bwrap) {
      const env = sandboxEnv(workspace);
      const box = new SandboxBox({
        command: helper[0] as string,
        args: helper.slice(1),
        env,
        cwd: workspace,
        clock,
      });
      return { box, sandboxed: false };
    }
    const box = new SandboxBox({
      command: this.#bwrap,
      args: [...bwrapArgs(this.#layout(workspace)), ...helper],
      env: {},
      cwd: workspace,
      clock,
      cgroup: this.#cgroup(),
      seccomp: this.#seccomp,
    });
    return { box, sandboxed: true };
  }

  /**
   * Runs `bash -c command` in `workspace` (a real path) under the limits: in
   * a sandbox of its own when the sandbox is on, as a plain process group
   * when it is off. Refused when the sandbox is unavailable.
   */
  async runCommand(
    workspace: string,
    command: string,
    options: ExecOptions & { clock: Clock },
  ): Promise<ExecOutcome> {
    const refusal = await this.bashRefusal();
    if (refusal) throw new SwitchboardError('PERMISSION_DENIED', refusal);
    const status = await this.check();
    const bash = limitedBash(command, this.limits);
    if (status.state !== 'on' || !this.#bwrap) {
      const env = sandboxEnv(workspace);
      const launch = { command: bash[0] as string, args: bash.slice(1), env, cwd: workspace, detached: true };
      return runCommand(launch, options);
    }
    // The arguments first: a layout that cannot be covered throws before a cgroup is made.
    const args = [...bwrapArgs(this.#layout(workspace)), ...bash];
    const cgroup = this.#cgroup();
    const launch = {
      command: this.#bwrap,
      args,
      env: {},
      cwd: workspace,
      cgroup,
      seccomp: this.#seccomp,
    };
    return runCommand(launch, { ...options, onEnd: () => removeWhenEmpty(cgroup) });
  }

  /** Why Bash is refused (the cause and its fix), or undefined when it may run. */
  async bashRefusal(): Promise<string | undefined> {
    const status = await this.check();
    if (status.state !== 'unavailable') return undefined;
    return `Bash is refused: the sandbox does not work on this machine: ${status.reason}. ${status.fix}`;
  }

  #layout(workspace: string): BwrapLayout {
    const tmp = this.limits.tmpBytes;
    return {
      workspace,
      network: this.network,
      hidden: this.#hidden,
      nodePath: process.execPath,
      env: sandboxEnv(workspace),
      tmpfs: { tmp, devShm: Math.max(1024 * 1024, Math.floor(tmp / 8)), run: 16 * 1024 * 1024 },
      seccomp: this.#seccomp !== undefined,
    };
  }

  #cgroup() {
    return createSandboxCgroup({ processes: this.limits.processes, memoryBytes: this.limits.memoryBytes });
  }

  async #probe(): Promise<SandboxStatus> {
    if (this.mode === 'off') return { state: 'off' };
    const problem = await this.#tryBwrap();
    if (problem) return { state: 'unavailable', reason: problem.cause, fix: problem.fix };
    return { state: 'on', network: this.network };
  }

  /** Starts one sandbox exactly as a command's would be, running `true`; the problem, if any. */
  async #tryBwrap(): Promise<SandboxProblem | undefined> {
    const bwrap = findBinary(this.#bwrapName);
    if (!bwrap) {
      const name = this.#bwrapName;
      return missingBinary(
        isAbsolute(name) ? `${name} does not exist or cannot be run` : `no ${name} in PATH`,
      );
    }
    if (!this.#seccomp) {
      return {
        cause: `no seccomp filter is built for this architecture (${process.arch})`,
        fix: "Run on x86-64 or arm64, or set SWITCHBOARD_SANDBOX=off to run commands with the bot's own rights.",
      };
    }
    const dir = await realpath(await mkdtemp(join(tmpdir(), 'switchboard-probe-')));
    try {
      const { code, stderr, error } = await new Promise<{
        code: number | null;
        stderr: string;
        error?: Error;
      }>((resolve) => {
        const { child } = spawnSandboxed({
          command: bwrap,
          args: [...bwrapArgs({ ...this.#layout(dir), hidden: [] }), '/bin/true'],
          env: {},
          cwd: dir,
          seccomp: this.#seccomp,
          stdin: 'ignore',
        });
        let err = '';
        child.stderr?.setEncoding('utf8');
        child.stderr?.on('data', (chunk: string) => {
          err = (err + chunk).slice(-500);
        });
        child.on('error', (error) => resolve({ code: null, stderr: error.message, error }));
        child.on('close', (code) => resolve({ code, stderr: err }));
      });
      if (error) return missingBinary(`${bwrap}: ${error.message}`);
      if (code === 0) {
        this.#bwrap = bwrap;
        return undefined;
      }
      return diagnose(stderr, code);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

/**
 * Throws the start-up error for `required` mode when the sandbox does not
 * work, and for any mode when a sandbox for `workspace` would show the bot's
 * own files (see {@link Sandbox.checkLayout}).
 */
export async function requireSandbox(sandbox: Sandbox, workspace?: string): Promise<SandboxStatus> {
  const status = await sandbox.check();
  if (sandbox.mode === 'required' && status.state === 'unavailable') {
    throw new SwitchboardError(
      'CONFIG_INVALID',
      `SWITCHBOARD_SANDBOX=required, but the sandbox does not work here: ${status.reason}. ${status.fix} With SWITCHBOARD_SANDBOX=auto the bot starts without Bash.`,
      { detail: { variable: 'SWITCHBOARD_SANDBOX' } },
    );
  }
  if (status.state === 'on' && workspace !== undefined) sandbox.checkLayout(workspace);
  return status;
}
