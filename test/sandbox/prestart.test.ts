/**
 * The file helper's early start: in a workspace whose last turn used the
 * file tools, the next turn's helper is running before any tool asks for it
 * (started beside the turn's first model request); a chat that only talks
 * never starts one. Seen from the host's /proc, where the helper's command
 * line names its workspace.
 */
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { Sandbox } from '../../src/sandbox/index.js';
import { hostProcessesWith } from '../tools/helpers.js';

/** Host processes of a file helper serving `workspace` (bubblewrap and the node inside). */
function helpers(workspace: string): number[] {
  return hostProcessesWith(`--max-old-space-size=512 -e`).filter((pid) =>
    hostProcessesWith(workspace).includes(pid),
  );
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

let dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  dirs = [];
});

async function workspace(): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'sb-prestart-')));
  await writeFile(join(dir, 'a.txt'), 'a\n');
  dirs.push(dir);
  return dir;
}

describe('the early start of the file helper', () => {
  it('runs before the first tool call in an active workspace, and never in a talking-only one', async () => {
    const sandbox = new Sandbox({ mode: 'required' });
    const [active, talking] = [await workspace(), await workspace()];
    const first = sandbox.openTurn(active, systemClock);
    await first.request('read', { path: 'a.txt', maxBytes: 100 });
    await first.close();
    const quiet = sandbox.openTurn(talking, systemClock);
    const second = sandbox.openTurn(active, systemClock);
    // No tool has asked yet: the helper of the active workspace starts on its own.
    await until(() => helpers(active).length > 0);
    expect(helpers(talking)).toEqual([]);
    await second.close();
    await quiet.close();
    await until(() => helpers(active).length === 0);
  });

  it('is off with prestart: false', async () => {
    const sandbox = new Sandbox({ mode: 'required', prestart: false });
    const dir = await workspace();
    const first = sandbox.openTurn(dir, systemClock);
    await first.request('read', { path: 'a.txt', maxBytes: 100 });
    await first.close();
    await until(() => helpers(dir).length === 0);
    const second = sandbox.openTurn(dir, systemClock);
    // Give a started helper time to show: another sandbox's helper starts and answers meanwhile.
    const probe = sandbox.openTurn(await workspace(), systemClock);
    await probe.request('read', { path: 'a.txt', maxBytes: 100 });
    await probe.close();
    expect(helpers(dir)).toEqual([]);
    await second.close();
  });
});
