/**
 * The ready bot's platforms, from the platform modules
 * (adapters/platforms.ts): one adapter per platform the configuration runs,
 * created by its module (which loads the SDK only then), and what follows
 * from which platforms run: whose people are the machine's operator, whether
 * the terminal is a chat, whom the empty-allowlist warning names.
 */
import { PLATFORMS } from '../adapters/platforms.js';
import type { Config } from '../config/index.js';
import type { ChatAdapter } from './bot/adapter-contract.js';
import type { PlatformContext } from './bot/platform-module.js';
import type { Logger } from './logger.js';

/** The modules of the platforms `config` runs, in the list's order. */
function running(config: Pick<Config, 'platforms'>) {
  return PLATFORMS.filter((platform) => platform.id in config.platforms);
}

/**
 * Creates an adapter for every platform `config` runs, in the list's order,
 * each given `context` with its logger bound to `{ platform: id }`;
 * `overrides` (by platform id) are laid over each module's own options.
 * An adapter that cannot be created stops the others' creation.
 */
export async function createAdapters(
  config: Pick<Config, 'platforms'>,
  context: PlatformContext,
  overrides: Readonly<Record<string, object>> = {},
): Promise<ChatAdapter[]> {
  const adapters: ChatAdapter[] = [];
  for (const platform of running(config)) {
    const own = { ...context, logger: context.logger.child({ platform: platform.id }) };
    adapters.push(await platform.create(config.platforms[platform.id], own, overrides[platform.id]));
  }
  return adapters;
}

/** Whether a running platform's chat is this terminal (its logs must then stay off it). */
export function terminalChatRuns(config: Pick<Config, 'platforms'>): boolean {
  return running(config).some((platform) => platform.terminal);
}

/** The platforms whose people are always allowed: the fallbacks', the machine's operator. */
export const TRUSTED_PLATFORMS: readonly string[] = PLATFORMS.filter((p) => p.fallback).map((p) => p.id);

/** The operator's user keys (`console:operator`) on the running platforms: admins. */
export function operatorKeys(config: Pick<Config, 'platforms'>): string[] {
  return running(config).flatMap((platform) =>
    platform.fallback && platform.operatorId ? [`${platform.id}:${platform.operatorId}`] : [],
  );
}

/** A bot nobody may use answers everyone with their id and runs nothing: say so once, at start. */
export function warnWhenNobodyIsAllowed(
  config: Pick<Config, 'platforms' | 'allowedUsers' | 'admins'>,
  logger: Logger,
): void {
  const chatPlatforms = running(config).filter((platform) => !platform.fallback);
  if (config.allowedUsers.length || config.admins.length || chatPlatforms.length === 0) return;
  const examples = PLATFORMS.filter((platform) => !platform.fallback)
    .slice(0, 2)
    .map((platform) => `${platform.id}:${platform.exampleUserId}`);
  logger.warn(
    'Nobody is allowed to use this bot: SWITCHBOARD_ALLOWED_USERS is empty, so everyone who writes is told ' +
      `their id and nothing runs. Add ids to SWITCHBOARD_ALLOWED_USERS (e.g. ${examples.join(',')}).`,
  );
}
