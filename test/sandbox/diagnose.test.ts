/**
 * The reason a sandbox cannot run, as an operator reads it. bubblewrap's own
 * words come from a real failure: bwrap run inside our sandbox, where new
 * user namespaces are refused just as a container's seccomp profile or a
 * sysctl refuses them on a host.
 */
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { diagnose } from '../../src/sandbox/diagnose.js';
import { Sandbox } from '../../src/sandbox/index.js';

describe('why the sandbox cannot run', () => {
  it('names blocked user namespaces, with bubblewrap\'s words and the fix, not "install bubblewrap"', async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), 'sb-diagnose-')));
    const turn = new Sandbox({ mode: 'required', prestart: false }).openTurn(dir, systemClock);
    let stderr = '';
    try {
      const outcome = await turn.exec('bwrap --unshare-user --ro-bind / / true', {
        timeoutMs: 20_000,
        signal: new AbortController().signal,
        onChunk: (chunk) => {
          stderr += chunk;
        },
      });
      expect(outcome.code).not.toBe(0);
    } finally {
      await turn.close();
      await rm(dir, { recursive: true, force: true });
    }
    expect(stderr).toMatch(/^bwrap: .*namespace/);
    const problem = diagnose(stderr, 1);
    expect(problem.cause).toMatch(/namespaces/);
    expect(problem.cause).toContain(stderr.trim());
    expect(problem.cause).not.toContain('not installed');
    expect(problem.fix).toContain('SWITCHBOARD_SANDBOX=off');
  });

  it('names a missing binary and an old bubblewrap by what they are', async () => {
    const missing = await new Sandbox({ bwrapPath: 'no-such-bwrap-here' }).check();
    expect(missing).toMatchObject({
      state: 'unavailable',
      reason: 'bubblewrap is not installed (no no-such-bwrap-here in PATH)',
    });
    expect(missing.state === 'unavailable' && missing.fix).toContain('apt-get install bubblewrap');
    // bubblewrap before 0.8 rejects --disable-userns as any unknown option (`bwrap --bogus` here says the same).
    expect(diagnose('bwrap: Unknown option --disable-userns\n', 1).cause).toBe(
      'this bubblewrap is too old (bwrap: Unknown option --disable-userns)',
    );
  });
});
