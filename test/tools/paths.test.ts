import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isErrorCode, type SwitchboardError } from '../../src/errors.js';
import { resolveInWorkspace } from '../../src/tools/paths.js';
import { makeSandbox, type Sandbox } from './helpers.js';

async function escapeError(cwd: string, path: string): Promise<SwitchboardError> {
  const err = await resolveInWorkspace(cwd, path).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isErrorCode(err, 'TOOL_PATH_ESCAPE'))
    throw new Error(`expected TOOL_PATH_ESCAPE for ${path}, got ${err}`);
  return err;
}

describe('resolveInWorkspace', () => {
  let box: Sandbox;
  beforeEach(async () => {
    box = await makeSandbox();
    await box.write({ 'src/a.ts': 'a', 'README.md': 'r' });
  });
  afterEach(() => box.cleanup());

  it('resolves relative and absolute paths inside the workspace', async () => {
    expect(await resolveInWorkspace(box.workspace, 'src/a.ts')).toBe(join(box.workspace, 'src/a.ts'));
    expect(await resolveInWorkspace(box.workspace, './src/../README.md')).toBe(
      join(box.workspace, 'README.md'),
    );
    expect(await resolveInWorkspace(box.workspace, join(box.workspace, 'src/a.ts'))).toBe(
      join(box.workspace, 'src/a.ts'),
    );
    expect(await resolveInWorkspace(box.workspace, '.')).toBe(box.workspace);
  });

  it('allows paths that do not exist yet, judged by their nearest existing folder', async () => {
    expect(await resolveInWorkspace(box.workspace, 'new/deep/file.txt')).toBe(
      join(box.workspace, 'new/deep/file.txt'),
    );
  });

  it('refuses ../ that leaves the workspace, naming the path', async () => {
    const err = await escapeError(box.workspace, '../outside/secret.txt');
    expect(err.message).toContain('"../outside/secret.txt"');
    expect(err.message).toContain('tools are confined to the workspace');
    await escapeError(box.workspace, 'src/../../outside');
    await escapeError(box.workspace, '..');
  });

  it('refuses absolute paths outside, including a sibling that shares the prefix', async () => {
    await escapeError(box.workspace, join(box.outside, 'secret.txt'));
    await escapeError(box.workspace, '/etc/passwd');
    await mkdir(`${box.workspace}-evil`);
    await escapeError(box.workspace, `${box.workspace}-evil/x`);
  });

  it('refuses a file symlink that points outside', async () => {
    await symlink(join(box.outside, 'secret.txt'), join(box.workspace, 'link.txt'));
    await escapeError(box.workspace, 'link.txt');
  });

  it('refuses a directory symlink that points outside, also for new files beneath it', async () => {
    await symlink(box.outside, join(box.workspace, 'out'));
    await escapeError(box.workspace, 'out/secret.txt');
    await escapeError(box.workspace, 'out/new-file.txt');
    await escapeError(box.workspace, 'out/new-dir/new-file.txt');
  });

  it('refuses a dangling symlink whose target would be created outside', async () => {
    await symlink(join(box.outside, 'not-yet.txt'), join(box.workspace, 'dangling.txt'));
    await escapeError(box.workspace, 'dangling.txt');
    await symlink('../outside/also-not-yet.txt', join(box.workspace, 'relative-dangling.txt'));
    await escapeError(box.workspace, 'relative-dangling.txt');
  });

  it('allows symlinks that stay inside, returning the real path', async () => {
    await symlink(join(box.workspace, 'src'), join(box.workspace, 'code'));
    await symlink('src/a.ts', join(box.workspace, 'alias.ts'));
    expect(await resolveInWorkspace(box.workspace, 'code/a.ts')).toBe(join(box.workspace, 'src/a.ts'));
    expect(await resolveInWorkspace(box.workspace, 'alias.ts')).toBe(join(box.workspace, 'src/a.ts'));
  });

  it('works when the workspace itself is reached through a symlink', async () => {
    const linked = join(box.base, 'ws-link');
    await symlink(box.workspace, linked);
    expect(await resolveInWorkspace(linked, 'src/a.ts')).toBe(join(box.workspace, 'src/a.ts'));
    expect(await resolveInWorkspace(linked, join(linked, 'README.md'))).toBe(
      join(box.workspace, 'README.md'),
    );
    await escapeError(linked, '../outside/secret.txt');
  });

  it('reports a missing workspace as TOOL_FAILED', async () => {
    const err = await resolveInWorkspace(join(box.base, 'nope'), 'a').catch((e: unknown) => e);
    expect(isErrorCode(err, 'TOOL_FAILED')).toBe(true);
  });

  it('gives up on a symlink loop instead of hanging', async () => {
    await symlink('loop-b', join(box.workspace, 'loop-a'));
    await symlink('loop-a', join(box.workspace, 'loop-b'));
    await expect(resolveInWorkspace(box.workspace, 'loop-a/x')).rejects.toThrow();
  });
});
