/**
 * Every platform switchboard can run, one line each: adding a platform is a
 * folder under adapters/ with its `platform.ts`, and a line here.
 *
 * The list holds the modules themselves, not loaders: a `platform.ts` is
 * light (zod and its own small files, never its SDK, which a test checks),
 * and configuration needs every module's settings fragment at once and at
 * start-up, synchronously, to validate the environment and report every
 * problem together. What is heavy, the adapter and its SDK, each module's
 * `create()` imports on first use, so an unconfigured platform's packages
 * are never loaded and need not be installed.
 *
 * Order matters where the list is shown (help text, example ids) and in
 * which order the ready bot starts the adapters.
 */
import type { PlatformModule } from '../src/bot/platform-module.js';
import consolePlatform from './console/platform.js';
import discord from './discord/platform.js';
import slack from './slack/platform.js';
import teams from './teams/platform.js';
import telegram from './telegram/platform.js';

/** The platforms, in the order the ready bot starts them. */
export const PLATFORMS: readonly PlatformModule[] = [telegram, slack, discord, teams, consolePlatform];
