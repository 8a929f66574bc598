/**
 * The grammy client: pointed at `apiRoot`, with auto-retry installed for
 * every method except the ones the core's outbox makes.
 *
 * Design decision (auto-retry and sends): every call the outbox makes
 * (sends, edits, deletes, typing, drafts) reaches Telegram once per attempt
 * and its 429 goes back to the outbox's scheduler as a RateLimitError. The
 * scheduler is the one owner of pacing: it pauses the chat for
 * `retry_after`, keeps the chat's other calls (which would meet the same
 * limit) waiting too, and then makes the call again with the newest text,
 * in message order. Retried inside grammY, a send would sleep up to a minute
 * while the scheduler counted it as in flight: a budget slot held by a call
 * that is not happening, and the chat's edits sent into the same limit.
 * Calls outside the outbox (callback answers, file downloads, start-up) keep
 * grammY's auto-retry.
 */
import { autoRetry } from '@grammyjs/auto-retry';
import { Api, Bot, type Transformer } from 'grammy';
import type { UserFromGetMe } from 'grammy/types';
import type { Logger } from '../../src/logger.js';

/** The methods the outbox makes (outbound.ts, upload.ts): their 429s must reach its scheduler. */
export const OUTBOX_METHODS: ReadonlySet<string> = new Set([
  'sendMessage',
  'sendRichMessage',
  'editMessageText',
  'deleteMessage',
  'sendChatAction',
  'sendMessageDraft',
  'sendRichMessageDraft',
  'sendPhoto',
  'sendDocument',
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
  installTransformers(bot.api, options);
  return bot;
}

/**
 * The adapter's own client beside a bot someone else built and runs: the
 * same token and client options, with our transformers. The owner's
 * `bot.api` keeps theirs (an auto-retry for every method, say), which would
 * otherwise sleep through the 429s the outbox's scheduler must see.
 */
export function apiBeside(bot: Bot, logger: Logger): Api {
  const api = new Api(bot.token, bot.api.options);
  installTransformers(api, { logger });
  return api;
}

function installTransformers(
  api: Api,
  options: Pick<GrammyBotOptions, 'logger' | 'maxRetryDelaySeconds'>,
): void {
  // Polling failures are retried by the runner with backoff; log each one here, without the token.
  api.config.use(async (prev, method, payload, signal) => {
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
    OUTBOX_METHODS.has(method) || method === 'getUpdates'
      ? prev(method, payload, signal)
      : retry(prev, method, payload, signal);
  api.config.use(selective);
}
