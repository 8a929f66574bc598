/**
 * The platform SDKs and pg are optional peer dependencies: a project (or
 * `npx switchboard`) installs the ones it uses. Each platform module names
 * the packages its `create()` imports. Before the ready bot starts,
 * the packages its configuration needs are looked up; a missing one stops
 * start-up with the one `npm install` line that adds all of them, instead of
 * a module-not-found error from deep inside an adapter.
 */
import { PLATFORMS } from '../adapters/platforms.js';
import type { Config } from '../config/index.js';
import { SwitchboardError } from './errors.js';
import { packageManifest } from './package-info.js';

/** What the bot needs besides the platforms: pg for a shared database. */
const DATABASE_PACKAGES = ['pg'];

/** The packages `config` makes the bot import (the running platforms' and the database's), in a stable order. */
export function packagesFor(config: Pick<Config, 'platforms' | 'database'>): string[] {
  return [
    ...PLATFORMS.filter((platform) => platform.id in config.platforms).flatMap(
      (platform) => platform.packages,
    ),
    ...(config.database === undefined ? [] : DATABASE_PACKAGES),
  ];
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
  config: Pick<Config, 'platforms' | 'database'>,
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
