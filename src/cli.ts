/**
 * The ready bot's command line: `--help` and `--version` answer without any
 * setting (no `.env`, no key), before the configuration is read.
 */
import { join } from 'node:path';
import { packageManifest, packageRoot } from './package-info.js';

/** Where every setting is described: the `.env.example` shipped with the package. */
export function settingsReference(): string {
  const root = packageRoot();
  return root ? join(root, '.env.example') : '.env.example';
}

/** The usage text of `switchboard --help`. */
export function usage(): string {
  return [
    'Usage: switchboard [--console]',
    '',
    'Runs the switchboard bot: an AI agent session behind Telegram, Slack and Discord,',
    'or a chat in this terminal when no platform is configured.',
    '',
    'Options:',
    '  --console   run the terminal chat alongside the configured platforms',
    '  --help      show this text',
    '  --version   show the version',
    '',
    'Settings come from the environment and from a .env file in the current folder.',
    'ANTHROPIC_API_KEY is required; TELEGRAM_BOT_TOKEN, SLACK_BOT_TOKEN or',
    'DISCORD_BOT_TOKEN start that platform, whose package must be installed',
    '(npm install grammy @grammyjs/runner @grammyjs/auto-retry, @slack/bolt, discord.js).',
    `Every setting is described in ${settingsReference()}`,
    '',
  ].join('\n');
}

/** The text `argv` asks for instead of starting (`--help`, `--version`), or undefined. */
export function cliAnswer(argv: readonly string[]): string | undefined {
  if (argv.includes('--help') || argv.includes('-h')) return usage();
  if (argv.includes('--version') || argv.includes('-v'))
    return `${packageManifest()?.version ?? 'unknown'}\n`;
  return undefined;
}
