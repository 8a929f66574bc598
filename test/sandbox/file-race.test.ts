/**
 * The file tools against a folder swapped for a symlink while they run: a
 * host process renames `dir` away, puts a link to the outside folder in its
 * place and back, as fast as it can, while the model asks for many Reads,
 * Writes, Edits, Globs and Greps through it. With the sandbox on, and with it
 * off (only the in-place resolver stands), nothing outside is read, created
 * or changed. Hard links to outside files are refused.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { link, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { leaked, SECRETS, useSandboxWorld } from './world.js';

const ROUNDS = 25;

let racer: ChildProcess | undefined;

/**
 * Stops the racer and every `mv`/`ln` it has running (its process group), and
 * waits until none is left, so nothing moves while the test checks or cleans up.
 */
async function stopRacer(): Promise<void> {
  const pid = racer?.pid;
  if (racer && pid !== undefined && racer.exitCode === null && racer.signalCode === null) {
    const exited = new Promise((resolve) => racer?.once('exit', resolve));
    process.kill(-pid, 'SIGKILL');
    await exited;
  }
  // A child caught inside a rename finishes it before it dies: wait until the group is gone
  // (bounded: a child already dead but not yet reaped still answers, and moves nothing).
  for (let i = 0; i < 200 && pid !== undefined && groupAlive(pid); i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  racer = undefined;
}

/** True while any process of group `pgid` exists. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Starts swapping `<cwd>/dir` and a link to `outside`; resolves once the first swap happened. */
async function startRacer(cwd: string, outside: string): Promise<void> {
  racer = spawn(
    'bash',
    [
      '-c',
      'echo go; while :; do mv dir dir.real 2>/dev/null; ln -sfn "$1" dir 2>/dev/null; rm -f dir; mv dir.real dir 2>/dev/null; done',
      'racer',
      outside,
    ],
    { cwd, stdio: ['ignore', 'pipe', 'ignore'], detached: true },
  );
  await new Promise((resolve) => racer?.stdout?.once('data', resolve));
}

describe.each([
  ['on', {}],
  ['off', { mode: 'off' as const }],
])('the file tools with the sandbox %s, against a symlink race', (_label, settings) => {
  const fx = useSandboxWorld();

  it('Read, Grep and Glob never see the outside; Write and Edit never touch it', async () => {
    const w = fx.world;
    await mkdir(join(w.chatA, 'dir'));
    await writeFile(join(w.chatA, 'dir', 'secret.txt'), 'inside text\n');
    const outsideBefore = await readFile(join(w.outside, 'secret.txt'), 'utf8');
    const session = fx.session({ sandbox: fx.sandbox(settings) });
    await startRacer(w.chatA, w.outside);
    const calls = [];
    for (let i = 0; i < ROUNDS; i++) {
      calls.push(
        { name: 'Read', input: { file_path: 'dir/secret.txt' } },
        { name: 'Write', input: { file_path: `dir/new-${i}.txt`, content: 'written' } },
        { name: 'Edit', input: { file_path: 'dir/secret.txt', old_string: 'planted', new_string: 'EDITED' } },
        { name: 'Grep', input: { pattern: 'planted', path: 'dir' } },
        { name: 'Glob', input: { pattern: 'dir/*' } },
      );
    }
    let results: Awaited<ReturnType<typeof fx.turn>>;
    try {
      results = await fx.turn(session, calls);
    } finally {
      await stopRacer();
    }
    expect(results).toHaveLength(calls.length);
    // The race was on: some calls met the folder missing or swapped, and said so.
    expect(results.filter((r) => r.isError).length).toBeGreaterThan(0);
    expect(leaked(results.map((r) => r.text).join('\n'))).toEqual([]);
    // Nothing was created or changed outside.
    expect(await readdir(w.outside)).toEqual(['secret.txt']);
    expect(await readFile(join(w.outside, 'secret.txt'), 'utf8')).toBe(outsideBefore);
    expect(outsideBefore).toContain(SECRETS.outside);
  });
});

describe('hard links', () => {
  const fx = useSandboxWorld();

  it('a hard link to an outside file is refused by Read, Edit, Write and left out of Grep', async () => {
    const w = fx.world;
    await link(join(w.outside, 'secret.txt'), join(w.chatA, 'linked.txt'));
    const session = fx.session();
    const results = await fx.turn(session, [
      { name: 'Read', input: { file_path: 'linked.txt' } },
      { name: 'Edit', input: { file_path: 'linked.txt', old_string: 'planted', new_string: 'x' } },
      { name: 'Write', input: { file_path: 'linked.txt', content: 'overwritten' } },
      { name: 'Grep', input: { pattern: 'planted' } },
    ]);
    expect(leaked(results.map((r) => r.text).join('\n'))).toEqual([]);
    for (const result of results.slice(0, 3)) {
      expect(result).toEqual({
        text: 'linked.txt has 2 hard links; tools refuse such files, because another link may lie outside the workspace. Copy the file (cp) and use the copy.',
        isError: true,
      });
    }
    expect(results[3]?.text).toBe('No matches for /planted/.');
    expect(await readFile(join(w.outside, 'secret.txt'), 'utf8')).toBe(`${SECRETS.outside}\n`);
  });
});
