/**
 * The grammy client: pointed at `apiRoot`, with auto-retry installed for
 * every method except edits and drafts. Those are paced by the core's one
 * scheduler, which must see their 429s instead of an SDK that silently
 * sleeps; everything else (sends of final text, callback answers, typing,
 * start-up calls) may be retried by the SDK.
 */
import { autoRetry } from '@grammyjs/auto-retry';
import { Bot, type Transformer } from 'grammy';
import type { UserFromGetMe } from 'grammy/types';
import type { Logger } from '../../src/logger.js';

/** Methods whose 429s must reach the core's scheduler. */
export const SCHEDULER_PACED_METHODS: ReadonlySet<string> = new Set([
  'editMessageText',
  'sendMessageDraft',
  'sendRichMessageDraft',
]);

/** Options for {@link createGrammyBot}. */
export interface GrammyBotOptions {
  token: string;
  apiRoot?: string;
  logger: Logger;
  /** Skips getMe (unit tests that only call handleUpdate). */
  botInfo?: UserFromGetMe;
  /** Longest wait auto-retry honours before handing the 429 to the caller. */
  maxRetryDelaySeconds?: number;
}

/** Creates the grammy bot with our transformers installed. */
export function createGrammyBot(options: GrammyBotOptions): Bot {
  const bot = new Bot(options.token, {
    client: {
      ...(options.apiRoot ? { apiRoot: options.apiRoot.replace(/\/+$/, '') } : {}),
      // A long poll holds 30 s; anything much longer than that is a dead connection.
      timeoutSeconds: 60,
    },
    ...(options.botInfo ? { botInfo: options.botInfo } : {}),
  });
  // Polling failures are retried by the runner with backoff; log each one here, without the token.
  bot.api.config.use(async (prev, method, payload, signal) => {
    try {
      const result = await prev(method, payload, signal);
      if (!result.ok && method === 'getUpdates') {
        options.logger.warn(
          { method, status: result.error_code, description: result.description },
          'Telegram getUpdates failed; retrying',
        );
      }
      return result;
    } catch (err) {
      if (method === 'getUpdates' && !signal?.aborted) {
        options.logger.warn(
          { method, err: err instanceof Error ? err.message : String(err) },
          'Telegram getUpdates failed; retrying',
        );
      }
      throw err;
    }
  });
  // Installed last so it runs outermost: each failed attempt above is logged. getUpdates is
  // left to the runner, which retries it with its own growing pause.
  const retry = autoRetry({ maxRetryAttempts: 5, maxDelaySeconds: options.maxRetryDelaySeconds ?? 60 });
  const selective: Transformer = (prev, method, payload, signal) =>
    SCHEDULER_PACED_METHODS.has(method) || method === 'getUpdates'
      ? prev(method, payload, signal)
      : retry(prev, method, payload, signal);
  bot.api.config.use(selective);
  return bot;
}
