/**
 * The platform module: what one adapter folder says about itself so that the
 * core never names a platform. Each `adapters/<id>/platform.ts` default-exports
 * one {@link PlatformModule}; `adapters/platforms.ts` lists them, one line
 * each. From that list the configuration composes its schema (each module's
 * settings fragment), derives the allowlist's `platform:id` keys, the secrets
 * the logger scrubs and the terminal-chat default, and the ready bot creates
 * the configured adapters in one loop.
 *
 * A module file stays light: it imports zod and its own small files, never
 * its SDK. `create()` imports the adapter (and with it the SDK) on first use,
 * so an unused platform's packages are never loaded and need not be installed.
 *
 * The shape follows the runtime adapters of Hono (the core defines a tiny
 * type, each runtime's folder implements it) and vercel/chat's adapter
 * settings (each platform declares its settings and which are secret; the
 * rest is derived).
 */
import type { z } from 'zod';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { MentionPolicy } from '../vocabulary.js';
import type { ChatAdapter, ChatCapabilities, HttpRoutes } from './adapter-contract.js';

/**
 * Reports a settings problem found by a module's cross-checks: `variable` is
 * the environment variable to fix, `message` says how ("is needed with
 * SLACK_BOT_TOKEN: set ..."). Configuration collects every report and exits 2
 * listing them all.
 */
export type SettingsProblem = (variable: string, message: string) => void;

/** What the ready bot hands every platform's `create()`. */
export interface PlatformContext {
  /** The bot's logger, already a child bound to `{ platform: id }`. */
  logger: Logger;
  clock: Clock;
  /** Largest file the bot downloads from or uploads to a chat, in bytes. */
  maxFileBytes: number;
  /** Mentions the model's text may make (SWITCHBOARD_MENTIONS). */
  mentions: MentionPolicy;
  /** The ops server's routes (health, metrics, OAuth callbacks) for a platform that serves HTTP itself (webhooks). */
  routes: HttpRoutes;
  /** The bot's data directory, for a platform's own small files (the terminal's history). */
  dataDir: string;
  /** The log file the bot writes to instead of the terminal, when it moved them there (the terminal chat prints where it is). */
  logFile?: string;
}

/**
 * One platform, described by its own folder.
 *
 * @typeParam Settings what {@link PlatformModule.settings} derives from the
 *   environment and {@link PlatformModule.create} takes.
 * @typeParam Options the adapter's own options, which a caller (tests, an
 *   embedding app) may override in part when the ready bot creates it.
 */
export interface PlatformModule<Settings = unknown, Options = unknown> {
  /**
   * The platform's id: the prefix of every chat key its adapter builds
   * (`telegram:123`) and of its people in SWITCHBOARD_ALLOWED_USERS
   * (`telegram:42`). Lower-case letters only.
   */
  readonly id: string;
  /** The platform's name as people write it, for messages ("Microsoft Teams"). */
  readonly title: string;
  /** How one of its user ids looks (without the prefix); the allowlist refuses anything else. */
  readonly userId: RegExp;
  /** A real-looking user id for examples in messages (`123456`, `U0123ABCD`). */
  readonly exampleUserId: string;
  /**
   * Its settings as a zod object shape over environment variables
   * (`TELEGRAM_BOT_TOKEN: ...`); configuration merges it into the core schema,
   * so a bad value is reported with the core's own. The first is the one that
   * turns the platform on (`--help` names it).
   */
  readonly env: z.ZodRawShape;
  /** The names in {@link PlatformModule.env} whose values are secret: the logger scrubs them. */
  readonly secrets: readonly string[];
  /** The packages `create()` imports, for the missing-package check at start. */
  readonly packages: readonly string[];
  /**
   * Undefined when the platform is not configured; else its settings.
   * `env` holds the parsed values of {@link PlatformModule.env}; problems a
   * single value cannot show (a secret needed with another setting) are
   * reported through `problem`.
   */
  settings(env: Record<string, unknown>, problem: SettingsProblem): Settings | undefined;
  /**
   * Runs when no other platform is configured (the terminal chat). Such a
   * platform's people are the machine's operator, always allowed.
   */
  readonly fallback?: boolean;
  /**
   * The id of the one person of a {@link PlatformModule.fallback} platform,
   * the machine's operator (`operator`): the ready bot makes
   * `<id>:<operatorId>` an admin.
   */
  readonly operatorId?: string;
  /**
   * Its chat is this process's terminal (stdin and stdout): the ready bot
   * then keeps routine logs off the terminal, in a file or at warn level.
   */
  readonly terminal?: boolean;
  /** How it renders Markdown, by default (a chat's capabilities may differ). */
  readonly dialect: ChatCapabilities['dialect'];
  /** What its chats allow, before a chat says otherwise (for docs and the contract suite). */
  readonly capabilities: Partial<ChatCapabilities>;
  /** Makes the adapter; imports the SDK on first call. */
  create(settings: Settings, context: PlatformContext, overrides?: Partial<Options>): Promise<ChatAdapter>;
}

/** A module's definition, checked against {@link PlatformModule} while keeping its own types. */
export function definePlatform<Settings, Options>(
  module: PlatformModule<Settings, Options>,
): PlatformModule<Settings, Options> {
  if (!/^[a-z]+$/.test(module.id))
    throw new TypeError(`platform id "${module.id}" must be lower-case letters`);
  return module;
}
