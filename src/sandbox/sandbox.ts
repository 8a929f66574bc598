/**
 * The sandbox of the agent's tools. {@link Sandbox} holds the settings and
 * finds out once whether bubblewrap works here; {@link Sandbox.openTurn}
 * gives a chat turn its own {@link SandboxTurn}, whose helper process starts
 * with the turn's first tool call and ends, with everything it started, when
 * the turn closes it.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../clock.js';
import { SwitchboardError } from '../errors.js';
import { type BoxLaunch, helperArgs, SandboxBox } from './box.js';
import { bwrapArgs } from './bwrap-args.js';
import { createPidsCgroup } from './pids-cgroup.js';
import {
  DEFAULT_SANDBOX_LIMITS,
  type SandboxLimits,
  type SandboxMode,
  type SandboxNetwork,
  type SandboxSettings,
  type SandboxStatus,
  sandboxEnv,
} from './settings.js';
import { SandboxTurn } from './turn.js';

/** Runs `command` and resolves with its exit code and the end of its stderr. */
function run(command: string, args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'], env: {} });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-500);
    });
    child.on('error', (err) => resolve({ code: null, stderr: err.message }));
    child.on('close', (code) => resolve({ code, stderr: stderr.trim() }));
  });
}

/**
 * The tools' sandbox for one bot or one library user.
 *
 * @example
 * const sandbox = new Sandbox({ mode: 'required', hidden: ['/srv/bot/data'] });
 * const status = await sandbox.check(); // { state: 'on', network: 'none' }
 * const session = new InteractiveSession({ cwd, provider, sandbox });
 */
export class Sandbox {
  readonly mode: SandboxMode;
  readonly network: SandboxNetwork;
  readonly limits: SandboxLimits;
  readonly #hidden: readonly string[];
  readonly #bwrap: string;
  #status: Promise<SandboxStatus> | undefined;

  constructor(settings: SandboxSettings = {}) {
    this.mode = settings.mode ?? 'auto';
    this.network = settings.network ?? 'none';
    this.limits = { ...DEFAULT_SANDBOX_LIMITS, ...settings.limits };
    this.#hidden = settings.hidden ?? [];
    this.#bwrap = settings.bwrapPath ?? 'bwrap';
  }

  /**
   * Whether the sandbox is in force: `on`, `off` (the mode says so) or
   * `unavailable` with the reason bubblewrap gave. Tried once, then remembered.
   */
  check(): Promise<SandboxStatus> {
    this.#status ??= this.#probe();
    return this.#status;
  }

  /** A sandbox for one chat turn in workspace `cwd`; close it when the turn ends. */
  openTurn(cwd: string, clock: Clock): SandboxTurn {
    return new SandboxTurn({ sandbox: this, cwd, clock });
  }

  /**
   * Starts a helper for `workspace` (a real path): inside bubblewrap when the
   * sandbox is on, as a plain process otherwise.
   */
  async launch(workspace: string, clock: Clock): Promise<{ box: SandboxBox; sandboxed: boolean }> {
    const status = await this.check();
    const env = sandboxEnv(workspace);
    const helper = helperArgs(process.execPath, workspace);
    const launch: BoxLaunch =
      status.state === 'on'
        ? {
            command: this.#bwrap,
            args: [
              ...bwrapArgs({
                workspace,
                network: this.network,
                hidden: this.#hidden,
                nodePath: process.execPath,
                env,
              }),
              ...helper,
            ],
            env: {},
            cwd: workspace,
            clock,
            cgroup: createPidsCgroup(this.limits.processes),
          }
        : { command: helper[0] as string, args: helper.slice(1), env, cwd: workspace, clock };
    return { box: new SandboxBox(launch), sandboxed: status.state === 'on' };
  }

  /** Why Bash is refused, or undefined when it may run. */
  async bashRefusal(): Promise<string | undefined> {
    const status = await this.check();
    if (status.state !== 'unavailable') return undefined;
    return (
      `Bash is refused: the sandbox (bubblewrap) does not work on this machine (${status.reason}). ` +
      'An admin can install bubblewrap (apt-get install bubblewrap), or set SWITCHBOARD_SANDBOX=off to run commands without it.'
    );
  }

  async #probe(): Promise<SandboxStatus> {
    if (this.mode === 'off') return { state: 'off' };
    const dir = await realpath(await mkdtemp(join(tmpdir(), 'switchboard-probe-')));
    try {
      const args = bwrapArgs({
        workspace: dir,
        network: this.network,
        hidden: [],
        nodePath: process.execPath,
        env: sandboxEnv(dir),
      });
      const { code, stderr } = await run(this.#bwrap, [...args, '/bin/true']);
      if (code === 0) return { state: 'on', network: this.network };
      return { state: 'unavailable', reason: stderr || `bwrap exited with ${code}` };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

/** Throws the start-up error for `required` mode when the sandbox does not work. */
export async function requireSandbox(sandbox: Sandbox): Promise<SandboxStatus> {
  const status = await sandbox.check();
  if (sandbox.mode === 'required' && status.state === 'unavailable') {
    throw new SwitchboardError(
      'CONFIG_INVALID',
      `SWITCHBOARD_SANDBOX=required, but the sandbox does not work here: ${status.reason}. Install bubblewrap (apt-get install bubblewrap) and allow user namespaces, or set SWITCHBOARD_SANDBOX=auto.`,
      { detail: { variable: 'SWITCHBOARD_SANDBOX' } },
    );
  }
  return status;
}
