/** SWITCHBOARD_SANDBOX and SWITCHBOARD_SANDBOX_NETWORK: defaults, checks, and what `required` does at start. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { isErrorCode } from '../../src/errors.js';
import { requireSandbox, Sandbox } from '../../src/sandbox/index.js';

const base = { ANTHROPIC_API_KEY: 'sk-ant-test-key' };

function failure(env: Record<string, string>): { message: string; variables: string[] } {
  try {
    loadConfig({ env: { ...base, ...env }, cwd: '/srv/bot' });
  } catch (err) {
    if (!isErrorCode(err, 'CONFIG_INVALID')) throw err;
    return { message: err.message, variables: err.detail.variables as string[] };
  }
  throw new Error('expected CONFIG_INVALID');
}

describe('sandbox settings', () => {
  it('default to auto with no network', () => {
    expect(loadConfig({ env: base, cwd: '/srv/bot' }).sandbox).toEqual({ mode: 'auto', network: 'none' });
    const c = loadConfig({
      env: { ...base, SWITCHBOARD_SANDBOX: 'required', SWITCHBOARD_SANDBOX_NETWORK: 'host' },
      cwd: '/srv/bot',
    });
    expect(c.sandbox).toEqual({ mode: 'required', network: 'host' });
  });

  it('name the variable and what it expects when wrong', () => {
    const p = failure({ SWITCHBOARD_SANDBOX: 'maybe', SWITCHBOARD_SANDBOX_NETWORK: 'api.example.com' });
    expect(p.variables.sort()).toEqual(['SWITCHBOARD_SANDBOX', 'SWITCHBOARD_SANDBOX_NETWORK']);
    expect(p.message).toMatch(/SWITCHBOARD_SANDBOX expected one of auto, required, off \(got "maybe"\)/);
    expect(p.message).toMatch(/SWITCHBOARD_SANDBOX_NETWORK expected one of none, host/);
  });

  it('required refuses to start without a working bubblewrap, naming the fix', async () => {
    const err = await requireSandbox(
      new Sandbox({ mode: 'required', bwrapPath: '/nonexistent/bwrap' }),
    ).catch((e: unknown) => e);
    expect(isErrorCode(err, 'CONFIG_INVALID')).toBe(true);
    expect((err as Error).message).toMatch(
      /^SWITCHBOARD_SANDBOX=required, but the sandbox does not work here: /,
    );
    expect((err as Error).message).toContain('apt-get install bubblewrap');
    // auto starts and reports why; off is taken at its word.
    expect(await requireSandbox(new Sandbox({ bwrapPath: '/nonexistent/bwrap' }))).toMatchObject({
      state: 'unavailable',
    });
    expect(await requireSandbox(new Sandbox({ mode: 'off' }))).toEqual({ state: 'off' });
    expect(await requireSandbox(new Sandbox({ mode: 'required' }))).toEqual({ state: 'on', network: 'none' });
  });
});
