/**
 * Starting a sandboxed process: bubblewrap by its absolute path, moved into
 * its cgroup before it starts anything, with the seccomp filter on the
 * descriptor bubblewrap reads it from; and killing it without leaving a
 * half-made sandbox behind.
 */
import { type ChildProcess, type StdioOptions, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { INFO_FD, SECCOMP_FD } from './bwrap-args.js';
import type { SandboxCgroup } from './cgroup.js';

/**
 * Joins every cgroup named before `--`, then becomes the program after it.
 * `$$` is the shell's pid, which the program keeps through `exec`, so the
 * limits hold before it can fork. The program is an absolute path and the
 * shell's environment is empty: nothing is looked up in a PATH.
 */
const JOIN_CGROUP = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"';

/** How to start one sandboxed (or, with the sandbox off, plain) process. */
export interface SandboxSpawn {
  /** An absolute path: bubblewrap's, or bash/node's when the sandbox is off. */
  command: string;
  args: string[];
  /** Empty for bubblewrap (`--setenv` sets the inside's): the cgroup shell then has none either. */
  env: Record<string, string>;
  cwd: string;
  cgroup?: SandboxCgroup | undefined;
  /**
   * The compiled filter, written to descriptor {@link SECCOMP_FD}; set for
   * bubblewrap only, which then also reports on {@link INFO_FD}.
   */
  seccomp?: Buffer | undefined;
  /** `pipe` for the helper's requests, `ignore` for a command (its stdin is empty). */
  stdin: 'pipe' | 'ignore';
  /** A process group of its own, to kill everything it started (the sandbox off). */
  detached?: boolean;
}

/** A started process and the way to kill all of it. */
export interface Spawned {
  child: ChildProcess;
  /** Kills the process and everything it started, now or as soon as that can be done safely. */
  kill(): void;
}

function signal(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** Spawns the process; its stdout and stderr are pipes. */
export function spawnSandboxed(options: SandboxSpawn): Spawned {
  const [command, args] = options.cgroup
    ? [
        '/bin/sh',
        ['-c', JOIN_CGROUP, 'sh', ...options.cgroup.procsFiles, '--', options.command, ...options.args],
      ]
    : [options.command, options.args];
  const bwrap = options.seccomp !== undefined;
  const stdio: StdioOptions = [options.stdin, 'pipe', 'pipe'];
  if (bwrap) stdio.push('pipe', 'pipe');
  const child = spawn(command as string, args as string[], {
    env: options.env,
    cwd: options.cwd,
    stdio,
    detached: options.detached ?? false,
  });
  if (!bwrap) {
    return {
      child,
      kill: () => signal(options.detached && child.pid !== undefined ? -child.pid : child.pid),
    };
  }
  const filter = child.stdio[SECCOMP_FD] as Writable;
  // A process that died before reading it must not crash the bot with EPIPE.
  filter.on('error', () => undefined);
  filter.end(options.seccomp);
  // bubblewrap names the sandbox's first process (its PID namespace's init) once it exists; killing
  // that ends the namespace. Killed before that, bubblewrap could leave a half-made sandbox behind
  // holding the output pipes, so a kill asked for earlier waits for the name or the exit.
  let init: number | undefined;
  let killAsked = false;
  let exited = false;
  // Once bubblewrap is gone, its namespace is too (--die-with-parent), and the pid may be reused.
  child.on('exit', () => {
    exited = true;
  });
  let info = '';
  const infoStream = child.stdio[INFO_FD] as Readable;
  infoStream.setEncoding('utf8');
  infoStream.on('error', () => undefined);
  infoStream.on('data', (chunk: string) => {
    if (init !== undefined || info.length > 4096) return;
    info += chunk;
    const pid = Number(/"child-pid"\s*:\s*(\d+)/.exec(info)?.[1]);
    if (!Number.isInteger(pid) || pid <= 0) return;
    init = pid;
    if (killAsked && !exited) {
      signal(init);
      signal(child.pid);
    }
  });
  return {
    child,
    kill() {
      killAsked = true;
      if (exited || init === undefined) return;
      signal(init);
      signal(child.pid);
    },
  };
}
