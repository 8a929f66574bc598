/**
 * deploy/switchboard.service on a fresh host: systemd's own verifier accepts
 * it, and every path the bot writes is one systemd creates for the service
 * (its StateDirectory), so no folder or account has to exist before the
 * first start.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { useCleanups } from '../helpers/cleanups.js';

const run = promisify(execFile);
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const UNIT = readFileSync(join(ROOT, 'deploy', 'switchboard.service'), 'utf8');
const cleanups = useCleanups();

/** The values of `key=` lines of the unit. */
function values(key: string): string[] {
  return [...UNIT.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((m) => m[1] ?? '');
}

describe('the systemd unit', () => {
  it('writes only where systemd creates the folders, and needs no account made beforehand', () => {
    const state = values('StateDirectory');
    expect(state).toEqual(['switchboard']);
    // Relative data and workspace paths resolve under the working directory: the state folder.
    expect(values('WorkingDirectory')).toEqual([`/var/lib/${state[0]}`]);
    for (const path of values('ReadWritePaths').flatMap((v) => v.split(/\s+/))) {
      expect(path.startsWith(`/var/lib/${state[0]}`)).toBe(true);
    }
    for (const setting of values('Environment')) {
      expect(setting).not.toMatch(/^SWITCHBOARD_(DATA_DIR|WORKSPACE|LOG_FILE)=\//);
    }
    expect(values('User').length === 0 && values('DynamicUser')[0] === 'yes').toBe(true);
  });

  it.skipIf(!existsSync('/usr/bin/systemd-analyze'))('passes systemd-analyze verify', async () => {
    const dir = await cleanups.tempRoot('unit');
    const copy = join(dir, 'switchboard.service');
    // The unit names the installed bot and settings file; verify checks the command it runs exists.
    await run('cp', [join(ROOT, 'deploy', 'switchboard.service'), copy]);
    const { stderr } = await run('systemd-analyze', ['verify', copy]).catch(
      (err: { stderr?: string; message: string }) => ({ stderr: err.stderr ?? err.message }),
    );
    expect(stderr.split('\n').filter((line) => line.includes('switchboard.service'))).toEqual([]);
  });
});
