/**
 * A configured platform whose SDK is not installed stops start-up with the
 * one `npm install` line that adds what is missing, at switchboard's peer
 * ranges; a platform that is not configured asks for nothing. (Real lookups
 * in an installed project: test/package/install.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { PLATFORMS } from '../../adapters/platforms.js';
import { usage } from '../../src/cli.js';
import { isErrorCode } from '../../src/errors.js';
import { packageManifest } from '../../src/package-info.js';
import { packagesFor, requirePlatformPackages } from '../../src/platform-packages.js';

const ranges = packageManifest()?.peerDependencies ?? {};

/** The message requirePlatformPackages throws when only `installed` can be found. */
function refusal(config: Parameters<typeof requirePlatformPackages>[0], installed: string[]): string {
  try {
    requirePlatformPackages(config, (name) => installed.includes(name));
  } catch (err) {
    expect(isErrorCode(err, 'CONFIG_INVALID')).toBe(true);
    return (err as Error).message;
  }
  return '';
}

describe('the platform packages a configuration needs', () => {
  it('names each configured part, nothing else', () => {
    expect(packagesFor({ platforms: {} })).toEqual([]);
    expect(packagesFor({ platforms: { console: {} } })).toEqual([]);
    expect(packagesFor({ platforms: { slack: {} }, database: {} as never })).toEqual(['@slack/bolt', 'pg']);
  });

  it('gives one npm install line, at the peer ranges, for what is missing', () => {
    const message = refusal({ platforms: { telegram: {}, discord: {} } }, ['grammy']);
    expect(message).toContain(
      `npm install @grammyjs/runner@${ranges['@grammyjs/runner']} @grammyjs/auto-retry@${ranges['@grammyjs/auto-retry']} discord.js@${ranges['discord.js']}\n`,
    );
    expect(message).toMatch(/^@grammyjs\/runner, @grammyjs\/auto-retry, discord\.js are not installed/);
    expect(refusal({ platforms: {}, database: {} as never }, [])).toContain(`npm install pg@${ranges.pg}\n`);
    expect(refusal({ platforms: { slack: {} } }, ['@slack/bolt'])).toBe('');
  });
});

describe('`switchboard --help`', () => {
  it("names each platform's switch and the packages it needs, from the platform list", () => {
    const text = usage();
    expect(text).toMatch(/^Usage: switchboard \[--console\]\n/);
    for (const platform of PLATFORMS.filter((p) => !p.fallback)) {
      expect(text).toContain(
        `${platform.title}: ${Object.keys(platform.env)[0]} (npm install ${platform.packages.join(' ')})`,
      );
    }
    expect(text).toContain('--console   run the terminal chat alongside the configured platforms');
  });
});
