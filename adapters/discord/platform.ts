/**
 * Discord as a platform module: its DISCORD_* settings, how its people's ids
 * look, and `create()`, which loads discord.js only when Discord is
 * configured. Sharding (`npm run start:sharded`) is in shard.ts beside it.
 */
import type { z } from 'zod';
import { optionalString, url } from '../../config/fields.js';
import { definePlatform } from '../../src/bot/platform-module.js';
import { DEFAULT_PACES, discordCapabilities } from './capabilities.js';
import type { DiscordAdapterOptions } from './index.js';
import { discordMarkdown } from './markdown.js';

const env = {
  DISCORD_BOT_TOKEN: optionalString,
  DISCORD_API_URL: url('the Discord REST API base, e.g. http://127.0.0.1:3000/api'),
  DISCORD_GUILD_ID: optionalString.refine((v) => v === undefined || /^\d{5,25}$/.test(v), {
    message: 'expected a numeric guild (server) id',
  }),
};

type Env = z.output<z.ZodObject<typeof env>>;

/** Discord's settings, present when DISCORD_BOT_TOKEN is set. */
export interface DiscordSettings {
  token: string;
  /** The REST API base, without a trailing slash. */
  apiUrl?: string;
  /** Register the commands to this guild only. */
  guildId?: string;
}

export default definePlatform<DiscordSettings, DiscordAdapterOptions>({
  id: 'discord',
  title: 'Discord',
  // A user id is a snowflake (https://discord.com/developers/docs/reference#snowflakes).
  userId: /^\d{1,20}$/,
  exampleUserId: '80351110224678912',
  env,
  secrets: ['DISCORD_BOT_TOKEN'],
  packages: ['discord.js'],
  settings(raw, problem) {
    const e = raw as Env;
    if (!e.DISCORD_BOT_TOKEN) {
      if (e.DISCORD_GUILD_ID) problem('DISCORD_BOT_TOKEN', 'is not set, but DISCORD_GUILD_ID is');
      return undefined;
    }
    return {
      token: e.DISCORD_BOT_TOKEN,
      ...(e.DISCORD_API_URL ? { apiUrl: e.DISCORD_API_URL.replace(/\/+$/, '') } : {}),
      ...(e.DISCORD_GUILD_ID ? { guildId: e.DISCORD_GUILD_ID } : {}),
    };
  },
  dialect: discordMarkdown,
  capabilities: discordCapabilities(DEFAULT_PACES),
  async create(settings, context, overrides) {
    const { createDiscordAdapter } = await import('./index.js');
    // Set by discord.js's ShardingManager for each shard process (`npm run start:sharded`, shard.ts);
    // the client connects only these shards.
    if (process.env.SHARDS)
      context.logger.info(
        { shards: process.env.SHARDS, shardCount: process.env.SHARD_COUNT },
        'Discord shard',
      );
    return createDiscordAdapter({
      token: settings.token,
      ...(settings.apiUrl ? { apiUrl: settings.apiUrl } : {}),
      ...(settings.guildId ? { guildId: settings.guildId } : {}),
      maxFileBytes: context.maxFileBytes,
      logger: context.logger,
      clock: context.clock,
      mentions: context.mentions,
      ...overrides,
    });
  },
});
