/**
 * One Bash command, run by the bot in a sandbox of its own: a bubblewrap
 * with its own PID namespace, so the command sees neither the bot nor the
 * turn's file helper (nothing to signal, trace or take descriptors from),
 * and its output comes straight to the bot through pipes only it holds. The
 * bot enforces the timeout: it kills the sandbox, and with it every process
 * in the namespace (bubblewrap's `--die-with-parent`), whatever the command
 * did to its parents. Processes a command leaves running end with it.
 */
import type { Clock } from '../clock.js';
import { SwitchboardError } from '../errors.js';
import type { SandboxCgroup } from './cgroup.js';
import { type SandboxSpawn, type Spawned, spawnSandboxed } from './spawn.js';

/**
 * How long to keep reading after the command ends. What it wrote is already
 * in the pipe; with the sandbox off, a process that left the group (`setsid`)
 * may keep the pipe open for ever, and must not hold the turn with it.
 */
export const EXEC_EXIT_GRACE_MS = 250;

/**
 * How long a killed command may take to end before the bot stops waiting:
 * bubblewrap itself is killed and the output dropped, so nothing inside can
 * hold a result past its timeout.
 */
export const EXEC_KILL_GRACE_MS = 2_000;

/** How a command ended, besides its own exit code. */
export interface ExecOutcome {
  /** Exit code; 128+n when a signal n ended the command inside the sandbox, as bash reports it. */
  code: number | null;
  signal: string | null;
  /** A process that left the command's group (setsid) still held its output. */
  detachedHolder: boolean;
  /** Set when the bot, not the command, ended it. */
  ended?: 'timeout' | 'aborted';
}

/** Options of one command. */
export interface ExecOptions {
  timeoutMs: number;
  signal: AbortSignal;
  onChunk(chunk: string): void;
}

/** The bash that sets the limits and then runs the command (`$5`), as one process. */
export function limitedBash(
  command: string,
  limits: { processes: number; memoryKb: number; fileBlocks: number; cpuSeconds: number },
): string[] {
  return [
    '/bin/bash',
    '-c',
    'ulimit -S -H -u "$1" -v "$2" -f "$3" -t "$4" || { echo "the sandbox could not set its limits" >&2; exit 126; }; exec /bin/bash -c "$5"',
    'bash',
    String(limits.processes),
    String(limits.memoryKb),
    String(limits.fileBlocks),
    String(limits.cpuSeconds),
    command,
  ];
}

/** Runs one command to its end (or the timeout or abort), streaming its output to `onChunk`. */
export function runCommand(
  launch: Omit<SandboxSpawn, 'stdin'>,
  options: ExecOptions & { clock: Clock; onEnd?: () => void },
): Promise<ExecOutcome> {
  if (options.signal.aborted)
    return Promise.reject(new SwitchboardError('ABORTED', 'The command was not run: the turn was stopped.'));
  const { clock } = options;
  return new Promise((resolve, reject) => {
    let spawned: Spawned;
    try {
      spawned = spawnSandboxed({ ...launch, stdin: 'ignore' });
    } catch (err) {
      reject(
        new SwitchboardError('TOOL_FAILED', `Could not run bash: ${(err as Error).message}`, { cause: err }),
      );
      return;
    }
    const { child } = spawned;
    let settled = false;
    let ended: ExecOutcome['ended'];
    let detachedHolder = false;
    let graceTimer: ReturnType<Clock['setTimeout']> | undefined;
    let forceTimer: ReturnType<Clock['setTimeout']> | undefined;
    // The sandbox: its PID namespace dies with its init. Off: the command's process group.
    const killAll = () => spawned.kill();
    const stop = (why: 'timeout' | 'aborted') => {
      ended ??= why;
      killAll();
      forceTimer ??= clock.setTimeout(() => {
        child.kill('SIGKILL');
        child.stdout?.destroy();
        child.stderr?.destroy();
      }, EXEC_KILL_GRACE_MS);
    };
    const timer = clock.setTimeout(() => stop('timeout'), options.timeoutMs);
    const onAbort = () => stop('aborted');
    options.signal.addEventListener('abort', onAbort, { once: true });
    const forward = (chunk: string) => {
      try {
        options.onChunk(chunk);
      } catch {
        // A failing consumer must not end the bot; the command is stopped instead.
        stop('aborted');
      }
    };
    child.stdout?.setEncoding('utf8');
    child.stderr?.setEncoding('utf8');
    child.stdout?.on('data', forward);
    child.stderr?.on('data', forward);
    child.stdout?.on('error', () => undefined);
    child.stderr?.on('error', () => undefined);
    child.on('exit', () => {
      if (launch.detached) killAll();
      graceTimer = clock.setTimeout(() => {
        detachedHolder = true;
        child.stdout?.destroy();
        child.stderr?.destroy();
      }, EXEC_EXIT_GRACE_MS);
    });
    const finish = () => {
      if (settled) return false;
      settled = true;
      clock.clearTimeout(timer);
      if (graceTimer !== undefined) clock.clearTimeout(graceTimer);
      if (forceTimer !== undefined) clock.clearTimeout(forceTimer);
      options.signal.removeEventListener('abort', onAbort);
      options.onEnd?.();
      return true;
    };
    child.on('error', (err) => {
      if (finish())
        reject(new SwitchboardError('TOOL_FAILED', `Could not run bash: ${err.message}`, { cause: err }));
    });
    child.on('close', (code, signal) => {
      if (finish()) resolve({ code, signal, detachedHolder, ...(ended ? { ended } : {}) });
    });
  });
}

/**
 * Removes a cgroup once the kernel has emptied it (a moment after the last
 * exit). Real timers, not the session's clock: this waits on the kernel, and
 * a virtual clock would never get there.
 */
export function removeWhenEmpty(cgroup: SandboxCgroup | undefined, attempt = 0): void {
  if (!cgroup || cgroup.remove() || attempt >= 20) return;
  setTimeout(() => removeWhenEmpty(cgroup, attempt + 1), 100).unref();
}
