/**
 * The ready bot's command line: `--help` and `--version` answer without any
 * setting (no `.env`, no key), before the configuration is read.
 */
import { join } from 'node:path';
import { PLATFORMS } from '../adapters/platforms.js';
import { packageManifest, packageRoot } from './package-info.js';

/** Where every setting is described: the `.env.example` shipped with the package. */
export function settingsReference(): string {
  const root = packageRoot();
  return root ? join(root, '.env.example') : '.env.example';
}

/** `a, b and c`. */
const listed = (words: readonly string[]) =>
  words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;

/** The usage text of `switchboard --help`, from the platform modules. */
export function usage(): string {
  const chats = PLATFORMS.filter((platform) => !platform.fallback);
  const fallbacks = PLATFORMS.filter((platform) => platform.fallback);
  const flags = fallbacks.map((platform) => `--${platform.id}`);
  return [
    `Usage: switchboard ${flags.map((flag) => `[${flag}]`).join(' ')}`.trimEnd(),
    '',
    `Runs the switchboard bot: an AI agent session behind ${listed(chats.map((p) => p.title))},`,
    `or ${listed(fallbacks.map((p) => p.title))} when no platform is configured.`,
    '',
    'Options:',
    ...fallbacks.map((p) => `  ${`--${p.id}`.padEnd(12)}run ${p.title} alongside the configured platforms`),
    `  ${'--help'.padEnd(12)}show this text`,
    `  ${'--version'.padEnd(12)}show the version`,
    '',
    'Settings come from the environment and from a .env file in the current folder.',
    'ANTHROPIC_API_KEY is required. Each platform starts when the setting named here is set,',
    'and needs its packages installed:',
    ...chats.map((p) => `  ${p.title}: ${Object.keys(p.env)[0] ?? ''} (npm install ${p.packages.join(' ')})`),
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
