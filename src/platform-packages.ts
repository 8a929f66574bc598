/**
 * The platform SDKs and pg are optional peer dependencies: a project (or
 * `npx switchboard`) installs the ones it uses. Before the ready bot starts,
 * the packages its configuration needs are looked up; a missing one stops
 * start-up with the one `npm install` line that adds all of them, instead of
 * a module-not-found error from deep inside an adapter.
 */
import type { Config } from '../config/index.js';
import { SwitchboardError } from './errors.js';
import { packageManifest } from './package-info.js';

/** The packages each configured part of the bot imports. */
export const PLATFORM_PACKAGES = {
  telegram: ['grammy', '@grammyjs/runner', '@grammyjs/auto-retry'],
  slack: ['@slack/bolt'],
  discord: ['discord.js'],
  database: ['pg'],
} as const;

/** The packages `config` makes the bot import, in a stable order. */
export function packagesFor(config: Pick<Config, 'telegram' | 'slack' | 'discord' | 'database'>): string[] {
  return (Object.keys(PLATFORM_PACKAGES) as (keyof typeof PLATFORM_PACKAGES)[])
    .filter((part) => config[part] !== undefined)
    .flatMap((part) => [...PLATFORM_PACKAGES[part]]);
}

/** True when `name` resolves from switchboard's own location, as the adapters' imports would. */
function installed(name: string): boolean {
  // A loader without import.meta.resolve (a test runner's) cannot tell: let the import answer.
  if (typeof import.meta.resolve !== 'function') return true;
  try {
    import.meta.resolve(name);
    return true;
  } catch {
    return false;
  }
}

/**
 * Throws `CONFIG_INVALID` (detail `packages`), naming the `npm install` line to run,
 * when a package `config` needs cannot be found. `isInstalled` is for tests.
 */
export function requirePlatformPackages(
  config: Pick<Config, 'telegram' | 'slack' | 'discord' | 'database'>,
  isInstalled: (name: string) => boolean = installed,
): void {
  const missing = packagesFor(config).filter((name) => !isInstalled(name));
  if (missing.length === 0) return;
  const ranges = packageManifest()?.peerDependencies ?? {};
  // A caret range needs no quotes in a shell; anything else (`>=1 <2`) does.
  const spec = (name: string, range = ranges[name]) =>
    range === undefined ? name : /^[\w.^~-]+$/.test(range) ? `${name}@${range}` : `'${name}@${range}'`;
  const specs = missing.map((name) => spec(name));
  throw new SwitchboardError(
    'CONFIG_INVALID',
    `${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not installed, and the configured ` +
      `platforms need ${missing.length === 1 ? 'it' : 'them'}. Install with:\n\n  npm install ${specs.join(' ')}\n`,
    { detail: { packages: missing } },
  );
}
