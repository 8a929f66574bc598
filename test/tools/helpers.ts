/** Temp workspaces and tool contexts for the tool tests. */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type Clock, systemClock } from '../../src/clock.js';
import { Sandbox as SandboxService } from '../../src/sandbox/sandbox.js';
import type { SandboxTurn } from '../../src/sandbox/turn.js';
import { scrubbedEnv } from '../../src/tools/env.js';
import { createBuiltinTools } from '../../src/tools/index.js';
import type { Tool, ToolContext } from '../../src/tools/types.js';

/** A workspace folder and a sibling folder outside it, both real paths. */
export interface Sandbox {
  /** Real path of the parent of both. */
  base: string;
  workspace: string;
  outside: string;
  /** Writes `files` (path -> content) relative to the workspace. */
  write(files: Record<string, string | Uint8Array>): Promise<void>;
  cleanup(): Promise<void>;
}

export async function makeSandbox(): Promise<Sandbox> {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'switchboard-tools-')));
  const workspace = join(base, 'ws');
  const outside = join(base, 'outside');
  await mkdir(workspace);
  await mkdir(outside);
  await writeFile(join(outside, 'secret.txt'), 'outside secret\n');
  return {
    base,
    workspace,
    outside,
    async write(files) {
      for (const [path, content] of Object.entries(files)) {
        const full = join(workspace, path);
        await mkdir(dirname(full), { recursive: true });
        await writeFile(full, content);
      }
    },
    cleanup: () => rm(base, { recursive: true, force: true }),
  };
}

export function makeContext(
  cwd: string,
  extra: { signal?: AbortSignal; env?: Record<string, string>; clock?: Clock; sandbox?: SandboxTurn } = {},
): ToolContext {
  return {
    cwd,
    signal: extra.signal ?? new AbortController().signal,
    env: extra.env ?? scrubbedEnv(),
    clock: extra.clock ?? systemClock,
    ...(extra.sandbox ? { sandbox: extra.sandbox } : {}),
  };
}

/**
 * Runs `work` with one turn of the default sandbox, closed afterwards, so
 * several calls can look at what earlier ones left running.
 */
export async function withTurn<T>(
  cwd: string,
  work: (turn: SandboxTurn) => Promise<T>,
  clock?: Clock,
): Promise<T> {
  const turn = new SandboxService().openTurn(cwd, clock ?? systemClock);
  try {
    return await work(turn);
  } finally {
    await turn.close();
  }
}

let markers = 0;
/** A `sleep` argument no other process on the host has, to find the process from outside. */
export function uniqueSleep(): string {
  return `${process.pid}${++markers}.25`;
}

/** Host processes whose command line contains `marker`. */
export function hostProcessesWith(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ').includes(marker))
        found.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/**
 * Resolves once no host process carries `marker`: each command has a PID
 * namespace of its own, so a pid seen inside means nothing to the next one;
 * the host's /proc is where to look. The test's timeout bounds the wait.
 */
export async function untilGoneOnHost(marker: string): Promise<void> {
  while (hostProcessesWith(marker).length > 0) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** The built-in tool called `name`. */
export function tool(name: string, options?: Parameters<typeof createBuiltinTools>[0]): Tool {
  const found = createBuiltinTools(options).find((t) => t.name === name);
  if (!found) throw new Error(`no built-in tool ${name}`);
  return found;
}
