/**
 * A cgroup per sandbox that caps its processes and its memory (tmpfs pages
 * included, since they are charged to the writer). Made beneath the bot's own
 * cgroup, so the sandbox stays inside whatever limits the bot runs under.
 * cgroup v1 (one folder per controller) and v2 (one folder) are both
 * handled; where no controller can be written (no rights, a v2 parent
 * without delegated controllers), the sandbox runs without one: `ulimit`
 * inside (processes per user, address space per process) and the sized
 * tmpfs are then the limits, and {@link CgroupStatus.reason} says why.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const V1_ROOT = '/sys/fs/cgroup';
const V2_ROOTS = ['/sys/fs/cgroup', '/sys/fs/cgroup/unified'];
const PREFIX = 'switchboard-sandbox-';

let counter = 0;

/** What a sandbox's cgroup limits. */
export interface CgroupLimits {
  processes: number;
  memoryBytes: number;
}

/** A cgroup the sandbox's first process joins before it starts anything. */
export interface SandboxCgroup {
  /** Write the process id to each of these to move it in (one per v1 controller). */
  procsFiles: string[];
  /** Which limits hold: `pids`, `memory`. */
  controllers: string[];
  /** Removes the cgroup; false while processes remain in it. */
  remove(): boolean;
}

/** The bot's own cgroup per controller, from /proc/self/cgroup (`''` key: the v2 hierarchy). */
function ownCgroups(): Map<string, string> {
  const out = new Map<string, string>();
  let text = '';
  try {
    text = readFileSync('/proc/self/cgroup', 'utf8');
  } catch {
    return out;
  }
  for (const line of text.split('\n')) {
    const [, controllers, path] = /^\d+:([^:]*):(.*)$/.exec(line) ?? [];
    if (controllers === undefined || path === undefined) continue;
    for (const name of controllers.split(',')) out.set(name, path);
  }
  return out;
}

/** Makes `dir` and writes the limit files; undefined (and nothing left behind) when any write fails. */
function make(dir: string, limits: Record<string, string>): string | undefined {
  removeStale(join(dir, '..'));
  try {
    mkdirSync(dir);
  } catch {
    return undefined;
  }
  try {
    for (const [file, value] of Object.entries(limits)) writeFileSync(join(dir, file), value);
    return dir;
  } catch {
    try {
      rmdirSync(dir);
    } catch {
      // Left for removeStale.
    }
    return undefined;
  }
}

/**
 * Creates a cgroup for one sandbox with the limits that can be set here, or
 * undefined when none can (not writable, no such controller).
 */
export function createSandboxCgroup(limits: CgroupLimits): SandboxCgroup | undefined {
  const own = ownCgroups();
  const name = `${PREFIX}${process.pid}-${++counter}`;
  const dirs: string[] = [];
  const controllers: string[] = [];
  const v2 = own.get('');
  const v1Pids = own.get('pids');
  const v1Memory = own.get('memory');
  if (v1Pids !== undefined || v1Memory !== undefined) {
    const pids =
      v1Pids === undefined
        ? undefined
        : make(join(V1_ROOT, 'pids', v1Pids, name), { 'pids.max': String(limits.processes) });
    const memory =
      v1Memory === undefined
        ? undefined
        : make(join(V1_ROOT, 'memory', v1Memory, name), {
            'memory.limit_in_bytes': String(limits.memoryBytes),
          });
    if (pids) {
      dirs.push(pids);
      controllers.push('pids');
    }
    if (memory) {
      dirs.push(memory);
      controllers.push('memory');
    }
  } else if (v2 !== undefined) {
    for (const root of V2_ROOTS) {
      const parent = join(root, v2);
      let enabled: string[];
      try {
        enabled = readFileSync(join(parent, 'cgroup.subtree_control'), 'utf8').trim().split(/\s+/);
      } catch {
        continue;
      }
      const files: Record<string, string> = {};
      if (enabled.includes('pids')) files['pids.max'] = String(limits.processes);
      if (enabled.includes('memory')) {
        files['memory.max'] = String(limits.memoryBytes);
        files['memory.swap.max'] = '0';
      }
      if (Object.keys(files).length === 0) break;
      const dir = make(join(parent, name), files);
      if (dir) {
        dirs.push(dir);
        controllers.push(...['pids', 'memory'].filter((c) => enabled.includes(c)));
      }
      break;
    }
  }
  if (dirs.length === 0) return undefined;
  return {
    procsFiles: dirs.map((dir) => join(dir, 'cgroup.procs')),
    controllers,
    remove() {
      let all = true;
      for (const dir of dirs) {
        try {
          rmdirSync(dir);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') all = false;
        }
      }
      return all;
    },
  };
}

/** Removes the empty cgroups a bot that is no longer running left behind (it could not wait for them to empty). */
function removeStale(parent: string): void {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const entry of names) {
    const owner = new RegExp(`^${PREFIX}(\\d+)-\\d+$`).exec(entry)?.[1];
    if (owner === undefined || existsSync(`/proc/${owner}`)) continue;
    try {
      rmdirSync(join(parent, entry));
    } catch {
      // Still in use or already gone.
    }
  }
}
