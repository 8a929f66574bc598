/**
 * The terminal chat under the real bot core and session, for tests: the
 * console adapter on in-memory streams, the model served by the fake
 * Messages API, stores in a temp folder. What the terminal shows is
 * collected, and a test waits for a pattern to appear on it.
 */
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { createConsoleAdapter } from '../../../adapters/console/index.js';
import { type Bot, createBot } from '../../../src/bot/index.js';
import { silentLogger } from '../../../src/logger.js';
import { AnthropicProvider } from '../../../src/provider/index.js';
import { createSessionFactory } from '../../../src/session/factory.js';
import { createBotStateStore, createUserSessionStore } from '../../../src/store/index.js';
import type { PermissionMode } from '../../../src/vocabulary.js';
import type { FakeAnthropic } from '../../fakes/anthropic.js';
import { watchScreen } from '../../helpers/console-screen.js';

/** A started terminal chat. */
export interface ConsoleBot {
  bot: Bot;
  /** What the operator types. */
  input: PassThrough;
  /** Everything the terminal showed so far. */
  screen(): string;
  /** Resolves once `pattern` matches what the terminal showed. */
  until(pattern: RegExp): Promise<void>;
}

/** Starts the bot with the console adapter; data under `root`, the session in `permissionMode`. */
export async function startConsoleBot(options: {
  anthropic: FakeAnthropic;
  root: string;
  workspace: string;
  permissionMode: PermissionMode;
}): Promise<ConsoleBot> {
  const input = new PassThrough();
  const { output, text: screen, until } = watchScreen();
  const bot = createBot({
    adapters: [createConsoleAdapter({ input, output, userName: 'op' })],
    sessions: createSessionFactory({
      provider: new AnthropicProvider({ apiKey: 'sk-ant-console-test-0123', baseURL: options.anthropic.url }),
      sessionStore: createUserSessionStore(join(options.root, 'data', 'sessions')),
      workspace: options.workspace,
      permissionMode: options.permissionMode,
    }),
    stores: { state: createBotStateStore(join(options.root, 'data')) },
    // The terminal's operator, as the ready bot trusts its fallback platform.
    access: { trustedPlatforms: ['console'] },
    logger: silentLogger,
  });
  await bot.start();
  return { bot, input, screen, until };
}
