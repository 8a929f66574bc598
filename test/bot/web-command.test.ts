/**
 * `/web on|off` and the web line of `/status`, through the bot core with a
 * real session against the fake Messages API.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_WEB_SETTINGS } from '../../src/provider/web-tools.js';
import { type BotHarness, startBotHarness, USERS } from '../helpers/bot-harness.js';

let h: BotHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('bot core: /web', () => {
  it('an admin turns the web off and on for a chat; /status says so; the tools never change', async () => {
    h = await startBotHarness({ web: DEFAULT_WEB_SETTINGS });
    await h.message('hello');
    await h.settle();
    expect(await h.ask('status')).toContain('Web: on (search and fetch)');
    expect(await h.ask('web', 'off')).toBe('Only an admin can turn the web on or off in a chat.');
    expect(await h.ask('web', 'maybe', { user: USERS.admin })).toBe(
      'Usage: /web <on|off>. "maybe" is neither.',
    );
    expect(await h.ask('web', 'off', { user: USERS.admin })).toBe(
      'The agent will not search or read the web in this chat (/web on turns it back on).',
    );
    expect(await h.ask('status')).toContain('Web: off in this chat (/web on turns it on)');
    await h.message('what is new?');
    await h.settle();
    const [first, second] = h.fakeAnthropic.requests;
    expect(JSON.stringify(second.tools)).toBe(JSON.stringify(first.tools));
    expect(JSON.stringify(second.messages)).toContain(
      'Web search and web fetch are now turned off in this chat',
    );
    // The setting is kept with the session: a restarted bot still has the web off here.
    const again = await h.restart({ web: DEFAULT_WEB_SETTINGS });
    await h.stop();
    h = again;
    expect(await h.ask('status')).toContain('Web: off in this chat');
  });

  it('says the web is not available when the bot has it turned off', async () => {
    h = await startBotHarness();
    await h.message('hello');
    await h.settle();
    expect(await h.ask('status')).toContain('Web: not available');
    expect(await h.ask('web', 'on', { user: USERS.admin })).toMatch(/^The web is not available here/);
  });
});
