/** Temp workspaces and tool contexts for the tool tests. */
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

/** Bash run in `turn`: `gone` when process `pid` (a number inside the sandbox) has ended. */
export const WAIT_GONE = (pid: number) =>
  `for i in $(seq 200); do kill -0 ${pid} 2>/dev/null || { echo gone; exit 0; }; sleep 0.05; done; echo alive`;

/** The built-in tool called `name`. */
export function tool(name: string, options?: Parameters<typeof createBuiltinTools>[0]): Tool {
  const found = createBuiltinTools(options).find((t) => t.name === name);
  if (!found) throw new Error(`no built-in tool ${name}`);
  return found;
}
