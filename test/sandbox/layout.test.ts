/**
 * Start-up refuses a layout in which a sandbox would show the bot's own
 * files and cannot cover them: a workspace that is the data directory.
 */
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { requireSandbox, Sandbox } from '../../src/sandbox/index.js';

let root = '';
afterEach(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

describe('the sandbox layout at start-up', () => {
  it('refuses a workspace that is the data directory, naming the setting to change', async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'sb-layout-')));
    const data = join(root, 'data');
    await mkdir(data);
    const sandbox = new Sandbox({ hidden: [data, join(root, '.env')] });
    await expect(requireSandbox(sandbox, data)).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining('SWITCHBOARD_WORKSPACE'),
    });
  });

  it('accepts a workspace beside the data directory, or inside it', async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'sb-layout-')));
    const data = join(root, 'data');
    await mkdir(join(data, 'workspace'), { recursive: true });
    await mkdir(join(root, 'workspace'));
    const sandbox = new Sandbox({ hidden: [data, join(root, '.env')] });
    expect((await requireSandbox(sandbox, join(root, 'workspace'))).state).toBe('on');
    expect((await requireSandbox(sandbox, join(data, 'workspace'))).state).toBe('on');
  });
});
