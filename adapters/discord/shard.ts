/**
 * `npm run start:sharded`: the ready bot for Discord as several shard
 * processes under discord.js's ShardingManager. Each shard is `src/main.ts`
 * (exactly what `npm start` runs), which logs its shard ids at start; discord.js hands it its shard ids through
 * the environment, and its client connects only those shards, so Discord
 * sends each shard the events of its own guilds. Shards share sessions, chat
 * state, leases and control messages through PostgreSQL, which is why
 * SWITCHBOARD_DATABASE_URL is required here.
 *
 * Settings: DISCORD_SHARDS (a number, or `auto` for Discord's recommendation;
 * default auto) and DISCORD_SHARD_DELAY (seconds between two shards
 * connecting; default 5.5, Discord's identify pace).
 *
 * The command itself is start-sharded.ts.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ShardingManager } from 'discord.js';
import { SwitchboardError } from '../../src/errors.js';
import { PLATFORMS } from '../platforms.js';
import discord from './platform.js';

/** What {@link planShards} derives from the environment. */
export interface ShardPlan {
  token: string;
  /** A shard count, or `auto` (Discord's recommendation, asked at start). */
  totalShards: number | 'auto';
  /** Pause between two shards connecting, in ms. */
  delayMs: number;
  /** Where `auto` asks for the recommended count: DISCORD_API_URL or Discord's API. */
  apiUrl: string;
}

const DEFAULT_API = 'https://discord.com/api';

/**
 * Checks the environment for a sharded start: Discord configured, a shared
 * PostgreSQL database, and no platform that cannot run once per shard.
 *
 * @throws SwitchboardError `CONFIG_INVALID` naming the variable to fix.
 */
export function planShards(env: Record<string, string | undefined>): ShardPlan {
  const problems: string[] = [];
  const token = env.DISCORD_BOT_TOKEN?.trim();
  if (!token) problems.push('DISCORD_BOT_TOKEN is not set: sharding is for Discord bots');
  if (!env.SWITCHBOARD_DATABASE_URL?.trim())
    problems.push(
      'SWITCHBOARD_DATABASE_URL is not set: shards are separate processes and must share their state in PostgreSQL',
    );
  // Another platform's switch (its first setting) would start it in every shard.
  for (const platform of PLATFORMS) {
    const name = Object.keys(platform.env)[0];
    if (platform === discord || !name || !env[name]?.trim()) continue;
    problems.push(
      `${name} is set: every shard would run ${platform.title} too; run it as its own replica with \`npm start\``,
    );
  }
  const shards = env.DISCORD_SHARDS?.trim() || 'auto';
  let totalShards: number | 'auto' = 'auto';
  if (shards !== 'auto') {
    totalShards = Number(shards);
    if (!/^\d+$/.test(shards) || totalShards < 1 || totalShards > 1000)
      problems.push(`DISCORD_SHARDS expected auto or a number of shards from 1 to 1000 (got "${shards}")`);
  }
  const delay = env.DISCORD_SHARD_DELAY?.trim() || '5.5';
  const delayMs = Math.round(Number(delay) * 1000);
  if (!/^\d+(\.\d+)?$/.test(delay) || delayMs > 60_000)
    problems.push(`DISCORD_SHARD_DELAY expected seconds from 0 to 60 (got "${delay}")`);
  if (problems.length)
    throw new SwitchboardError('CONFIG_INVALID', `Invalid configuration:\n  ${problems.join('\n  ')}`);
  return {
    token: token as string,
    totalShards,
    delayMs,
    apiUrl: (env.DISCORD_API_URL?.trim() || DEFAULT_API).replace(/\/+$/, ''),
  };
}

/**
 * Discord's recommended shard count, asked where the bot's REST calls go
 * (discord.js's own `auto` always asks discord.com).
 */
export async function recommendedShards(plan: ShardPlan): Promise<number> {
  const response = await fetch(`${plan.apiUrl}/v10/gateway/bot`, {
    headers: { authorization: `Bot ${plan.token}` },
  });
  if (!response.ok) {
    await response.arrayBuffer();
    throw new SwitchboardError(
      response.status === 401 ? 'PLATFORM_AUTH' : 'PLATFORM_ERROR',
      `Discord answered ${response.status} when asked for the recommended shard count; check DISCORD_BOT_TOKEN, or set DISCORD_SHARDS to a number.`,
    );
  }
  const body = (await response.json()) as { shards?: number };
  return Math.max(1, Number(body.shards ?? 1));
}

/** Options of {@link startShards}. */
export interface StartShardsOptions {
  /** The script each shard runs; default the ready bot, `src/main.js` when compiled, else `src/main.ts`. */
  file?: string;
  /** Node flags of each shard; default none for compiled JavaScript, tsx's loader for TypeScript. */
  execArgv?: string[];
  /** How long a shard may take to be ready, in ms (default 30,000). */
  readyTimeoutMs?: number;
}

const HERE = dirname(fileURLToPath(import.meta.url));
/** The package's root: this file is adapters/discord/shard.ts, or dist/adapters/discord/shard.js. */
const ROOT = join(HERE, '..', '..');

/** Spawns every shard and resolves once each is ready; respawns a shard whose process dies. */
export async function startShards(
  plan: ShardPlan,
  options: StartShardsOptions = {},
): Promise<ShardingManager> {
  const totalShards = plan.totalShards === 'auto' ? await recommendedShards(plan) : plan.totalShards;
  // Compiled (dist/adapters/discord/shard.js, as `npm run start:sharded` runs it) each shard
  // runs dist/src/main.js with no loader; from the sources (tests, tsx) src/main.ts under tsx.
  const compiled = existsSync(join(ROOT, 'src', 'main.js'));
  const file = options.file ?? join(ROOT, 'src', compiled ? 'main.js' : 'main.ts');
  const tsx = pathToFileURL(join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
  const loader = existsSync(fileURLToPath(tsx)) ? ['--import', tsx] : ['--import', 'tsx'];
  const manager = new ShardingManager(file, {
    token: plan.token,
    totalShards,
    mode: 'process',
    respawn: true,
    execArgv: options.execArgv ?? (file.endsWith('.ts') ? loader : []),
  });
  await manager.spawn({
    amount: totalShards,
    delay: plan.delayMs,
    timeout: options.readyTimeoutMs ?? 30_000,
  });
  return manager;
}
