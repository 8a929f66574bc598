/**
 * A pids cgroup per sandbox, for a bot that runs as root: the kernel does not
 * apply `ulimit -u` to a process whose real user is root (even inside a user
 * namespace), so a fork bomb is held by the cgroup's `pids.max` instead.
 * Used only when a pids controller is mounted and writable.
 */
import { existsSync, mkdirSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where pids controllers are usually mounted: cgroup v1, then the v2 hierarchy. */
const CONTROLLER_ROOTS = ['/sys/fs/cgroup/pids', '/sys/fs/cgroup'];

let counter = 0;

/** A cgroup the sandbox's first process joins before it starts anything. */
export interface PidsCgroup {
  /** Write a process id here to move it in. */
  procsFile: string;
  /** Removes the cgroup; false while processes remain in it. */
  remove(): boolean;
}

/** Creates a pids cgroup limited to `max` processes, or undefined when not root or none is writable. */
export function createPidsCgroup(max: number): PidsCgroup | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const root of CONTROLLER_ROOTS) {
    removeStale(root);
    const dir = join(root, `switchboard-sandbox-${process.pid}-${++counter}`);
    try {
      mkdirSync(dir);
    } catch {
      continue;
    }
    try {
      writeFileSync(join(dir, 'pids.max'), String(max));
    } catch {
      rmdirSync(dir);
      continue;
    }
    return {
      procsFile: join(dir, 'cgroup.procs'),
      remove() {
        try {
          rmdirSync(dir);
          return true;
        } catch {
          return false;
        }
      },
    };
  }
  return undefined;
}

/** Removes the empty cgroups a bot that is no longer running left behind (it could not wait for them to empty). */
function removeStale(root: string): void {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return;
  }
  for (const name of names) {
    const owner = /^switchboard-sandbox-(\d+)-\d+$/.exec(name)?.[1];
    if (owner === undefined || existsSync(`/proc/${owner}`)) continue;
    try {
      rmdirSync(join(root, name));
    } catch {
      // Still in use or already gone.
    }
  }
}
