/**
 * Two more ways out, from the outside: a symlinked AGENTS.md under trusted
 * project access, and a Grep pattern that backtracks without end, which must
 * neither stall the bot's event loop nor another chat.
 */
import { symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createGrepTool } from '../../src/tools/index.js';
import { nextEvent } from '../session/helpers.js';
import { leaked, useSandboxWorld } from './world.js';

describe('project files and runaway patterns', () => {
  const fx = useSandboxWorld();

  it('a symlinked AGENTS.md is not loaded; a plain CLAUDE.md is', async () => {
    const w = fx.world;
    await symlink('/proc/self/environ', join(w.chatA, 'AGENTS.md'));
    await writeFile(join(w.chatA, 'CLAUDE.md'), 'Be brief.\n');
    const session = fx.session({ projectAccess: 'trusted' });
    fx.fake.enqueue({ text: 'hi' });
    const { completed } = await session.submit('hello');
    await completed;
    const system = JSON.stringify(fx.fake.requests.at(-1)?.system ?? '');
    expect(system).toContain('Be brief.');
    expect(system).not.toContain('Contents of AGENTS.md');
    expect(leaked(system)).toEqual([]);
    expect(system).not.toContain('SWITCHBOARD_TEST_PLANTED_SECRET');
  });

  it("a catastrophic Grep runs off the event loop: another chat's turn completes meanwhile", async () => {
    const w = fx.world;
    await writeFile(join(w.chatA, 'evil.txt'), `${'a'.repeat(64)}b\n`);
    // A limit far beyond the test, so only the other chat's progress can end the wait.
    const grep = createGrepTool({ maxOutputChars: 30_000, timeLimitMs: 600_000 });
    const slow = fx.session({ tools: [grep] });
    const other = fx.session({ cwd: w.chatB });
    fx.fake.enqueue({ toolUse: [{ name: 'Grep', input: { pattern: '(a+)+$', path: 'evil.txt' } }] });
    const started = nextEvent(slow, 'tool_start');
    // submit() resolves after the turn when the session is idle: not awaited here.
    const slowDone = slow.submit('search').then(({ completed }) => completed);
    await started;
    let slowEnded = false;
    slowDone.then(
      () => {
        slowEnded = true;
      },
      () => {
        slowEnded = true;
      },
    );
    fx.fake.enqueue({ text: 'answered meanwhile' });
    const { completed } = await other.submit('hello');
    expect((await completed).response).toBe('answered meanwhile');
    expect(slowEnded).toBe(false);
    // Stopping the chat ends the search with its sandbox.
    const interrupted = nextEvent(slow, 'interrupted');
    slow.abort();
    await interrupted;
    await expect(slowDone).resolves.toMatchObject({ state: 'interrupted' });
  });

  it('a catastrophic Grep is stopped at its time limit with a message the model can act on', async () => {
    await writeFile(join(fx.world.chatA, 'evil.txt'), `${'a'.repeat(64)}b\n`);
    const session = fx.session({ tools: [createGrepTool({ maxOutputChars: 30_000, timeLimitMs: 300 })] });
    const [result] = await fx.turn(session, [{ name: 'Grep', input: { pattern: '(a+)+$' } }]);
    expect(result).toEqual({
      text: 'Grep was stopped after 300 ms: the pattern probably backtracks without end (nested quantifiers such as (a+)+). Simplify the pattern or narrow the path.',
      isError: true,
    });
  });
});
