/**
 * The sandbox as the bot core shows it: `/status` warns when the sandbox is
 * not in force, Bash is not offered when it does not work (auto), and a fork
 * keeps `bypassPermissions` only for someone allowed to set it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Sandbox } from '../../src/sandbox/index.js';
import { toolResults } from '../fakes/anthropic.js';
import { type BotHarness, startBotHarness, USERS } from '../helpers/bot-harness.js';

let h: BotHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('the sandbox in the bot', () => {
  it('auto without a working bubblewrap: Bash is not offered, the prompt says so once, /status names the cause and its fix', async () => {
    h = await startBotHarness({ sandbox: new Sandbox({ bwrapPath: '/nonexistent/bwrap' }) });
    await h.ask('mode', 'bypassPermissions', { user: USERS.admin });
    h.fakeAnthropic.enqueue(
      {
        toolUse: [
          { name: 'Bash', input: { command: 'echo ran' } },
          { name: 'Write', input: { file_path: 'a.txt', content: 'x' } },
        ],
      },
      { text: 'done' },
    );
    await h.message('go');
    await h.settle();
    const request = h.fakeAnthropic.requests.at(-1);
    const names = (request.tools as { name: string }[]).map((t) => t.name);
    expect(names).not.toContain('Bash');
    expect(names).toContain('Write');
    const system = JSON.stringify(request.system);
    expect(system.match(/There is no Bash tool here/g)).toHaveLength(1);
    // A model that asks anyway gets the engine's unknown-tool answer; nothing ran.
    const [bash, write] = toolResults(h.fakeAnthropic.requests).slice(-2);
    expect(bash?.isError).toBe(true);
    expect(bash?.text).toMatch(/^Unknown tool "Bash"/);
    expect(write).toEqual({ text: 'Created a.txt (1 bytes).', isError: false });
    // The cause and its fix are for an admin; everyone else learns what it means.
    const operatorStatus = await h.ask('status', '', { user: USERS.admin });
    expect(operatorStatus).toContain(
      'Sandbox: unavailable: bubblewrap is not installed (/nonexistent/bwrap does not exist or cannot be run)',
    );
    expect(operatorStatus).toContain('apt-get install bubblewrap');
    expect(operatorStatus).toContain('Bash is not offered to the model');
    const status = await h.ask('status');
    expect(status).toContain('\nSandbox: unavailable, so the agent cannot run commands (Bash)');
    expect(status).not.toMatch(/SWITCHBOARD_|bubblewrap/);
  });

  it('/status says so when an admin switched the sandbox off, and nothing when it is on', async () => {
    h = await startBotHarness({ sandbox: new Sandbox({ mode: 'off' }) });
    await h.message('hello');
    await h.settle();
    expect(await h.ask('status', '', { user: USERS.admin })).toContain(
      "Sandbox: off (SWITCHBOARD_SANDBOX=off); commands run with the bot's own rights",
    );
    expect(await h.ask('status')).toContain("\nSandbox: off; commands run with the bot's own rights");
    await h.close();
    h = await startBotHarness({ sandbox: new Sandbox() });
    await h.message('hello');
    await h.settle();
    expect(await h.ask('status')).not.toContain('Sandbox:');
  });

  it('a non-admin who forks a session an admin switched to bypassPermissions gets the default mode', async () => {
    h = await startBotHarness();
    const group = 'test:200';
    await h.message('hello', { chat: group });
    await h.settle();
    expect(await h.ask('mode', 'bypassPermissions', { user: USERS.admin, chat: group })).toBe(
      'Permission mode is now bypassPermissions.',
    );
    expect(await h.ask('fork', '', { chat: group })).toContain('Forked');
    const copy = (await h.stateStore.getChat(group))?.sessionId as string;
    expect(await h.ask('status', '', { chat: group })).toContain('Permission mode: default');
    // Resumed in a direct chat, the copy is still not in bypassPermissions.
    expect(await h.ask('resume', copy, { chat: 'test:300' })).toMatch(/^Resumed/);
    expect(await h.ask('status', '', { chat: 'test:300' })).toContain('Permission mode: default');
    const stored = await h.sessionStore.load(copy);
    expect(stored.status === 'valid' && stored.record.permissionMode).toBe('default');
  });

  it('an admin who forks keeps bypassPermissions', async () => {
    h = await startBotHarness();
    await h.message('hello', { user: USERS.admin });
    await h.settle();
    await h.ask('mode', 'bypassPermissions', { user: USERS.admin });
    expect(await h.ask('fork', '', { user: USERS.admin })).toContain('Forked');
    expect(await h.ask('status', '', { user: USERS.admin })).toContain('Permission mode: bypassPermissions');
  });
});
