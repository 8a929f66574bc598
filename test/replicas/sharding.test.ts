/**
 * `npm run start:sharded`: the compiled dist/adapters/discord/start-sharded.js as a child process,
 * running two Discord shards (each the ready bot, `dist/src/main.js`) under discord.js's
 * ShardingManager against the fake Discord and one PostgreSQL schema.
 *
 * The fake gateway routes like Discord: each guild's events go only to the
 * shard that owns it ((guild_id >> 22) % shard count). The bot is in two
 * guilds that map to different shards; a mention in each is answered exactly
 * once, every dispatch of a guild went to its own shard's socket, and every
 * REST call about a guild's chat came from that shard's process (the fake
 * tells processes apart through /proc).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { planShards, recommendedShards } from '../../adapters/discord/shard.js';
import { isErrorCode } from '../../src/errors.js';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic.js';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/index.js';
import { BUILT_SHARD, REPO } from '../helpers/dist.js';
import { SKIP_REASON, testDatabaseUrl, testSchemas } from '../store-postgres/database.js';

const url = testDatabaseUrl();
const DB = 'postgres://sb:secret-pw@127.0.0.1:5432/sb';

describe('planning a sharded start', () => {
  it('needs a Discord token and a shared database, and refuses platforms that cannot run once per shard', () => {
    const refusal = (env: Record<string, string>) => {
      try {
        planShards(env);
      } catch (err) {
        expect(isErrorCode(err, 'CONFIG_INVALID')).toBe(true);
        return (err as Error).message;
      }
      throw new Error('planShards accepted it');
    };
    expect(refusal({ DISCORD_BOT_TOKEN: 'x' })).toContain('SWITCHBOARD_DATABASE_URL is not set');
    expect(refusal({ SWITCHBOARD_DATABASE_URL: DB })).toContain('DISCORD_BOT_TOKEN is not set');
    const both = refusal({ DISCORD_BOT_TOKEN: 'x', SWITCHBOARD_DATABASE_URL: DB, TELEGRAM_BOT_TOKEN: '1:a' });
    expect(both).toContain('TELEGRAM_BOT_TOKEN is set');
    expect(refusal({ DISCORD_BOT_TOKEN: 'x', SWITCHBOARD_DATABASE_URL: DB, DISCORD_SHARDS: '0' })).toContain(
      'DISCORD_SHARDS',
    );
    expect(
      refusal({ DISCORD_BOT_TOKEN: 'x', SWITCHBOARD_DATABASE_URL: DB, DISCORD_SHARD_DELAY: 'soon' }),
    ).toContain('DISCORD_SHARD_DELAY');
    expect(planShards({ DISCORD_BOT_TOKEN: 'x', SWITCHBOARD_DATABASE_URL: DB, DISCORD_SHARDS: '4' })).toEqual(
      {
        token: 'x',
        totalShards: 4,
        delayMs: 5500,
        apiUrl: 'https://discord.com/api',
      },
    );
  });

  it('asks the configured Discord API for the recommended shard count', async () => {
    const fake = await startFakeDiscord();
    try {
      const plan = planShards({
        DISCORD_BOT_TOKEN: fake.token,
        DISCORD_API_URL: `${fake.apiUrl}/`,
        SWITCHBOARD_DATABASE_URL: DB,
      });
      expect(plan.totalShards).toBe('auto');
      expect(await recommendedShards(plan)).toBe(1);
      await expect(recommendedShards({ ...plan, token: 'wrong' })).rejects.toThrow(/DISCORD_SHARDS/);
    } finally {
      await fake.close();
    }
  });

  it('`npm run start:sharded` runs the sharded start: without Discord it exits 2 and says why', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'switchboard-sharded-'));
    try {
      // The script as package.json runs it (scripts/start.mjs --sharded), from a folder without a .env.
      const child = spawn(process.execPath, [join(REPO, 'scripts', 'start.mjs'), '--sharded'], {
        cwd,
        env: { PATH: process.env.PATH ?? '' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let err = '';
      child.stderr?.on('data', (chunk: Buffer) => {
        err += chunk.toString();
      });
      const [code] = await once(child, 'exit');
      expect(err).toContain('DISCORD_BOT_TOKEN is not set: sharding is for Discord bots');
      expect(code).toBe(2);
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });
});

if (!url)
  describe('sharded start on PostgreSQL', () => {
    it.skip(SKIP_REASON, () => undefined);
  });

describe.skipIf(!url)('npm run start:sharded', () => {
  let fake: FakeDiscord | undefined;
  let anthropic: FakeAnthropic | undefined;
  let manager: ChildProcess | undefined;
  let root: string | undefined;
  const schemas = url ? testSchemas(url) : undefined;

  afterAll(async () => {
    if (manager && manager.exitCode === null && manager.signalCode === null) {
      manager.kill('SIGKILL');
      await once(manager, 'exit');
    }
    await fake?.close();
    await anthropic?.close();
    await schemas?.cleanup();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('runs two shards of the ready bot, each serving only its own guild, each chat answered once', async () => {
    fake = await startFakeDiscord({ trackProcesses: true });
    const guilds = [
      fake.addGuild({ name: 'Zero', shard: [0, 2] }),
      fake.addGuild({ name: 'One', shard: [1, 2] }),
    ];
    // The guilds' ids map to different shards by Discord's formula, not by the fake's say-so.
    expect(guilds.map((g) => Number((BigInt(g.id) >> 22n) % 2n))).toEqual([0, 1]);
    anthropic = await startFakeAnthropic();
    root = await mkdtemp(join(tmpdir(), 'switchboard-shards-'));
    const discord = fake;
    const schema = schemas?.name() ?? '';
    const child = spawn(process.execPath, [BUILT_SHARD], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: root,
        ANTHROPIC_API_KEY: 'sk-ant-shards-0123456789abcdef',
        ANTHROPIC_BASE_URL: anthropic.url,
        DISCORD_BOT_TOKEN: discord.token,
        DISCORD_API_URL: discord.apiUrl,
        DISCORD_GUILD_ID: discord.guildId,
        DISCORD_SHARDS: '2',
        DISCORD_SHARD_DELAY: '0',
        SWITCHBOARD_DATABASE_URL: url ?? '',
        SWITCHBOARD_DATABASE_SCHEMA: schema,
        SWITCHBOARD_DATA_DIR: join(root, 'data'),
        SWITCHBOARD_WORKSPACE: join(root, 'workspace'),
        SWITCHBOARD_ALLOWED_USERS: `discord:${discord.user('alice').id}`,
        SWITCHBOARD_LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    manager = child;
    let out = '';
    let err = '';
    const changed = new Set<() => void>();
    child.stdout?.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      for (const f of [...changed]) f();
    });
    child.stderr?.setEncoding('utf8').on('data', (c: string) => {
      err += c;
      for (const f of [...changed]) f();
    });
    /** Resolves once `ready()` holds, re-checked whenever the manager or a shard writes. */
    const output = (ready: () => boolean, what: string, timeoutMs: number) =>
      new Promise<void>((done, fail) => {
        const check = () => {
          if (!ready()) return;
          changed.delete(check);
          clearTimeout(timer);
          done();
        };
        const timer = setTimeout(() => {
          changed.delete(check);
          fail(new Error(`timed out waiting for ${what}; stderr: ${err.slice(-2000)}`));
        }, timeoutMs);
        changed.add(check);
        check();
      });
    await output(() => /2 Discord shard\(s\) ready/.test(err), 'both shards ready', 90_000);
    // Log lines are written asynchronously: wait for both shards' start-up lines.
    await output(
      () => out.split('switchboard started').length === 3,
      'both shards logging their start',
      30_000,
    );
    const lines = (message: string) =>
      out
        .split('\n')
        .filter((l) => l.includes(message))
        .map((l) => JSON.parse(l) as { shards?: string; shardCount?: string; store?: string });
    const shards = lines('"Discord shard"');
    expect(shards.map((s) => s.shards).sort()).toEqual(['0', '1']);
    expect(shards.every((s) => s.shardCount === '2')).toBe(true);
    expect(lines('switchboard started').every((s) => s.store === 'postgres')).toBe(true);

    const alice = discord.user('alice');
    const openings = guilds.map((g, shard) =>
      discord.userMessage({
        channelId: g.generalId,
        author: alice,
        content: `<@${discord.botUser.id}> hello shard ${shard}`,
      }),
    );
    const threads = await Promise.all(
      openings.map((o) => discord.waitFor(() => discord.channels.get(o.id), 'thread', 20_000)),
    );
    for (const [shard, thread] of threads.entries()) {
      await discord.waitFor(
        () => discord.botMessages(thread.id).some((m) => m.content.includes(`hello shard ${shard}`)),
        `reply in guild of shard ${shard}`,
        20_000,
      );
    }
    for (const shard of [0, 1]) {
      const text = `hello shard ${shard}`;
      expect(anthropic.requests.filter((r) => JSON.stringify(r.messages).includes(text))).toHaveLength(1);
      expect(discord.botMessages(threads[shard]!.id).filter((m) => m.content.includes(text))).toHaveLength(1);
    }

    // Every dispatch of a guild (GUILD_CREATE, MESSAGE_CREATE, THREAD_CREATE, ...) went to its shard only.
    for (const [shard, g] of guilds.entries()) {
      const events = discord.gateway.dispatches.filter((d) => d.guildId === g.id);
      expect(events.map((d) => d.t)).toEqual(expect.arrayContaining(['GUILD_CREATE', 'MESSAGE_CREATE']));
      expect(new Set(events.map((d) => d.shard))).toEqual(new Set([shard]));
    }

    // The REST calls of each chat came from the process that identified as its shard.
    const shardOfPid = new Map(
      discord.gateway.log.filter((l) => l.op === 'identify').map((l) => [l.pid, l.shard?.[0]]),
    );
    expect([...shardOfPid.values()].sort()).toEqual([0, 1]);
    expect(shardOfPid.has(undefined)).toBe(false);
    for (const shard of [0, 1]) {
      const thread = threads[shard]!.id;
      const calls = discord.calls.filter(
        (c) =>
          c.path.startsWith(`/channels/${thread}`) || c.path.includes(`/messages/${openings[shard]!.id}`),
      );
      expect(calls.some((c) => c.method === 'POST' && c.path === `/channels/${thread}/messages`)).toBe(true);
      expect(new Set(calls.map((c) => shardOfPid.get(c.pid)))).toEqual(new Set([shard]));
    }

    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  }, 150_000);
});
