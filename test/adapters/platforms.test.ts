/**
 * The platform modules (adapters/<id>/platform.ts, listed in
 * adapters/platforms.ts): loading the list loads no platform's SDK (only
 * `create()` does), each module's declared capabilities are what its adapter
 * says of a private chat, and the allowlist takes each platform's people by
 * the shape of their ids.
 */
import { PassThrough } from 'node:stream';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { PLATFORMS } from '../../adapters/platforms.js';
import { loadConfig } from '../../config/index.js';
import type { PlatformContext } from '../../src/bot/platform-module.js';
import { systemClock } from '../../src/clock.js';
import { isErrorCode } from '../../src/errors.js';
import { silentLogger } from '../../src/logger.js';

const SDKS = [
  'grammy',
  '@grammyjs/runner',
  '@grammyjs/auto-retry',
  '@slack/bolt',
  'discord.js',
  '@microsoft/teams.apps',
  '@microsoft/teams.api',
];

/** The packages reachable from `entry` by static imports only, or by dynamic ones too. */
function packagesReached(metafile: Metafile, entry: string, dynamic: boolean): Set<string> {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const walk = (path: string) => {
    if (seen.has(path)) return;
    seen.add(path);
    for (const imported of metafile.inputs[path]?.imports ?? []) {
      if (imported.kind === 'dynamic-import' && !dynamic) continue;
      if (imported.external) packages.add(imported.path);
      else walk(imported.path);
    }
  };
  walk(entry);
  return packages;
}

describe('the platform list', () => {
  it('loads no SDK: each module imports its adapter, and with it the SDK, only in create()', async () => {
    const { metafile } = await build({
      entryPoints: ['adapters/platforms.ts'],
      bundle: true,
      write: false,
      metafile: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      logLevel: 'silent',
    });
    const loaded = [...packagesReached(metafile, 'adapters/platforms.ts', false)];
    expect(loaded.filter((name) => SDKS.some((sdk) => name === sdk || name.startsWith(`${sdk}/`)))).toEqual(
      [],
    );
    // The walk does see them behind create()'s import: the check above can fail.
    const behindCreate = packagesReached(metafile, 'adapters/platforms.ts', true);
    for (const sdk of ['grammy', '@slack/bolt', 'discord.js', '@microsoft/teams.apps'])
      expect(behindCreate).toContain(sdk);
  });

  it('has one module per id, each variable with one owner, each example id of its own shape', () => {
    const ids = PLATFORMS.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    const variables = PLATFORMS.flatMap((p) => Object.keys(p.env));
    expect(new Set(variables).size).toBe(variables.length);
    for (const platform of PLATFORMS) {
      expect(platform.userId.test(platform.exampleUserId), platform.id).toBe(true);
      for (const secret of platform.secrets) expect(Object.keys(platform.env)).toContain(secret);
    }
    expect(PLATFORMS.filter((p) => p.fallback).map((p) => p.id)).toEqual(['console']);
  });

  it("declares what its adapter says of a private chat, the module's dialect included", async () => {
    const privateChats: Record<string, string> = {
      telegram: 'telegram:123456',
      slack: 'slack:D0123ABCD:1700000000.000100',
      discord: 'discord:dm:123456789012345678',
      teams: 'teams:a:1personal',
      console: 'console:local',
    };
    const settings: Record<string, unknown> = {
      telegram: { token: '123:abcdefghijklmnop' },
      slack: { token: 'xoxb-1-2', appToken: 'xapp-1-2', port: 0, commandName: 'switchboard' },
      discord: { token: 'discord-token-value' },
      teams: { appId: '0f8fad5b-d9cb-469f-a165-70867728950e', appPassword: 'x', port: 0 },
      console: {},
    };
    const context: PlatformContext = {
      logger: silentLogger,
      clock: systemClock,
      maxFileBytes: 1024,
      mentions: 'none',
      routes: { handle: () => false },
      dataDir: '/nonexistent',
    };
    expect(Object.keys(privateChats)).toEqual(PLATFORMS.map((p) => p.id));
    for (const platform of PLATFORMS) {
      const adapter = await platform.create(settings[platform.id], context, {
        input: new PassThrough(),
        output: new PassThrough(),
      });
      const chat = privateChats[platform.id] ?? '';
      expect(adapter.platform).toBe(platform.id);
      const capabilities = adapter.capabilities(chat);
      expect(capabilities, platform.id).toMatchObject(platform.capabilities);
      expect(capabilities.dialect, platform.id).toBe(platform.dialect);
      expect(capabilities.privateChat, platform.id).toBe(true);
    }
  });
});

describe("the allowlist's people", () => {
  const base = { ANTHROPIC_API_KEY: 'sk-ant-test-key' };
  const refusal = (users: string) => {
    try {
      loadConfig({ env: { ...base, SWITCHBOARD_ALLOWED_USERS: users } });
    } catch (err) {
      if (isErrorCode(err, 'CONFIG_INVALID')) return err.message;
      throw err;
    }
    return '';
  };

  it("takes every platform's example id and refuses an unknown platform or an id of the wrong shape", () => {
    const examples = PLATFORMS.map((p) => `${p.id}:${p.exampleUserId}`);
    expect(refusal(examples.join(','))).toBe('');
    expect(refusal('telgram:1')).toContain(
      'SWITCHBOARD_ALLOWED_USERS expected comma-separated platform:userId',
    );
    // A Slack name instead of its member id, a Telegram username instead of its number.
    expect(refusal('slack:alice')).not.toBe('');
    expect(refusal('telegram:@alice')).not.toBe('');
    // The message shows each platform's ids as they look.
    for (const example of examples) expect(refusal('nobody')).toContain(example);
  });
});
