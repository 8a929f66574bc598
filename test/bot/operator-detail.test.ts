/**
 * What a chat user who is not an admin can read never names a setting: a
 * sweep over every command of the catalogue (with and without arguments,
 * and with wrong ones), `/status`, `/help`, a turn the model provider
 * refuses (its error names the API key variable), a compaction with nothing
 * to compact — in a bot whose sandbox cannot run and whose one MCP server is
 * down with a reason that names its token. Each text is checked against the
 * names people could not act on: `SWITCHBOARD_*`, the platforms' and the
 * provider's variables, anything ending in `_TOKEN`, `_KEY` or `_SECRET`,
 * and the `.env` file. An admin running the same commands still sees them,
 * so the sweep would notice a command that leaks.
 */
import { afterEach, expect, it } from 'vitest';
import { AccessPolicy } from '../../src/bot/access.js';
import { COMMAND_CATALOGUE } from '../../src/bot/adapter-contract.js';
import { namesOperatorDetail, withoutOperatorDetail } from '../../src/bot/text.js';
import { Sandbox } from '../../src/sandbox/index.js';
import type { ToolSource } from '../../src/tools/types.js';
import { type BotHarness, startBotHarness, USERS } from '../helpers/bot-harness.js';

let h: BotHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Setting names and secrets' names, as an operator writes them in `.env`. */
const SETTING =
  /SWITCHBOARD_|ANTHROPIC_|TELEGRAM_|SLACK_|DISCORD_|POSTGRES_|[A-Z]_TOKEN\b|[A-Z]_KEY\b|[A-Z]_SECRET\b|\.env\b/;

/** One MCP server, down, with the reason its process gave (naming its token). */
const downServer: ToolSource = {
  tools: () => [],
  servers: () => [
    { name: 'tracker', state: 'down', tools: [], problem: 'exited with 1: TRACKER_API_TOKEN is not set' },
  ],
};

/** Arguments each command is tried with: none, a plausible one, and a wrong one. */
const ARGS = ['', 'x', 'notamode --force', 'a'.repeat(2_100)];

it('never shows a non-admin a setting name: every command, its errors, status, help and a refused turn', async () => {
  h = await startBotHarness({
    sandbox: new Sandbox({ bwrapPath: '/nonexistent/bwrap' }),
    toolSource: downServer,
  });
  const seen: string[] = [];
  const sweep = async (user = USERS.alice) => {
    const answers: string[] = [];
    for (const { name } of COMMAND_CATALOGUE) {
      if (name === 'stop') continue;
      for (const args of ARGS) answers.push(await h!.ask(name, args, { user }));
    }
    answers.push(await h!.ask('frobnicate', '', { user }));
    return answers;
  };

  // Before any session, then after a turn the provider refuses. The sweep's /bg runs end
  // first, so the refusal below is the chat's own turn's, not a background run's.
  const backgroundResults = () => h!.texts().filter((t) => t.startsWith('🧵 Background result')).length;
  seen.push(...(await sweep()));
  await h.until(() => backgroundResults() === 3, "the sweep's three background runs");
  h.fakeAnthropic.enqueue({
    error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' },
  });
  await h.message('hello');
  await h.settle();
  await h.message('hello again');
  await h.settle();
  seen.push(...(await sweep()));
  seen.push(...h.texts());

  expect(seen.join('\n')).toContain('Sandbox: unavailable, so the agent cannot run commands (Bash)');
  expect(seen.join('\n')).toContain('MCP server tracker: down');
  // The refused turn was said, without the variable: the operator is pointed to instead.
  expect(h.texts().some((t) => /^⚠️ .*operator/.test(t))).toBe(true);
  for (const text of seen) expect(text).not.toMatch(SETTING);

  // An admin asking the same gets the details: the sweep above would see a leak.
  const admin = (await sweep(USERS.admin)).join('\n');
  expect(admin).toMatch(/SWITCHBOARD_SANDBOX=off/);
  expect(admin).toContain('TRACKER_API_TOKEN');
  expect(admin).toContain('SWITCHBOARD_PRICES');
});

it('keeps the problem and drops the fix only an operator can apply; the terminal operator and admins see it all', () => {
  expect(
    withoutOperatorDetail(
      '⚠️ Could not reach the Anthropic API (network error). Check the connection or ANTHROPIC_BASE_URL and try again.',
    ),
  ).toBe("⚠️ Could not reach the Anthropic API (network error). (The bot's operator can see why in its log.)");
  expect(
    withoutOperatorDetail(
      '⚠️ ANTHROPIC_API_KEY was rejected by the Anthropic API (401): check the key in .env and restart.',
    ),
  ).toBe(
    "⚠️ The bot's API key was rejected by the Anthropic API (401). (The bot's operator can see why in its log.)",
  );
  expect(
    withoutOperatorDetail(
      'TELEGRAM_BOT_TOKEN was rejected by Telegram (401): check the token from @BotFather',
    ),
  ).toBe(
    "The bot's token was rejected by Telegram (401): check the token from @BotFather. (The bot's operator can see why in its log.)",
  );
  expect(withoutOperatorDetail('Sandbox: off (SWITCHBOARD_SANDBOX=off); commands run as the bot')).toBe(
    "Sandbox: off (a setting); commands run as the bot. (The bot's operator can see why in its log.)",
  );
  expect(withoutOperatorDetail('Context: 12% used\nNothing else.')).toBe('Context: 12% used\nNothing else.');
  // A platform's settings are known by how settings end, a platform the core never named included.
  expect(
    ['TELEGRAM_API_ROOT', 'SLACK_COMMAND', 'DISCORD_GUILD_ID', 'TEAMS_APP_ID', 'TEAMS_APP_PASSWORD'].map(
      (name) => namesOperatorDetail(`check ${name}`),
    ),
  ).toEqual([true, true, true, true, true]);
  // A rule or a command a person wrote is not a setting of the bot.
  expect(namesOperatorDetail('Bash(NODE_ENV=test npm test)')).toBe(false);
  const access = new AccessPolicy({
    allowedUsers: ['telegram:1'],
    admins: ['telegram:9'],
    trustedPlatforms: ['console'],
  });
  expect([
    access.isOperator('telegram:1'),
    access.isOperator('telegram:9'),
    access.isOperator('console:operator'),
  ]).toEqual([false, true, true]);
  expect([access.isOperatorChat('console:local'), access.isOperatorChat('telegram:1')]).toEqual([
    true,
    false,
  ]);
});
