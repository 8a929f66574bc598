/**
 * Starting a sandboxed process: bubblewrap by its absolute path, moved into
 * its cgroup before it starts anything, with the seccomp filter on the
 * descriptor bubblewrap reads it from.
 */
import { type ChildProcess, type StdioOptions, spawn } from 'node:child_process';
import type { Writable } from 'node:stream';
import { SECCOMP_FD } from './bwrap-args.js';
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
  /** The compiled filter, written to descriptor {@link SECCOMP_FD} (bubblewrap's `--seccomp`). */
  seccomp?: Buffer | undefined;
  /** `pipe` for the helper's requests, `ignore` for a command (its stdin is empty). */
  stdin: 'pipe' | 'ignore';
  /** A process group of its own, to kill everything it started (the sandbox off). */
  detached?: boolean;
}

/** Spawns the process; its stdout and stderr are pipes. */
export function spawnSandboxed(options: SandboxSpawn): ChildProcess {
  const [command, args] = options.cgroup
    ? [
        '/bin/sh',
        ['-c', JOIN_CGROUP, 'sh', ...options.cgroup.procsFiles, '--', options.command, ...options.args],
      ]
    : [options.command, options.args];
  const stdio: StdioOptions = [options.stdin, 'pipe', 'pipe'];
  if (options.seccomp) stdio[SECCOMP_FD] = 'pipe';
  const child = spawn(command as string, args as string[], {
    env: options.env,
    cwd: options.cwd,
    stdio,
    detached: options.detached ?? false,
  });
  if (options.seccomp) {
    const filter = child.stdio[SECCOMP_FD] as Writable | null;
    // A process that died before reading it must not crash the bot with EPIPE.
    filter?.on('error', () => undefined);
    filter?.end(options.seccomp);
  }
  return child;
}
