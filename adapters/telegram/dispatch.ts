/**
 * Hands translated updates to the core's sink. Photos are downloaded first
 * (largest size, via getFile and the file endpoint) so the model sees them;
 * every callback query is answered: by the core's responder, with an error
 * toast when the core fails, or empty after a deadline, so Telegram's
 * spinner never hangs.
 */
import type { Api } from 'grammy';
import type { Update, UserFromGetMe } from 'grammy/types';
import type { Attachment, ChatEvent, EventSink, Responder } from '../../src/bot/adapter-contract.js';
import type { Clock } from '../../src/clock.js';
import type { Logger } from '../../src/logger.js';
import { translateUpdate } from './inbound.js';

/** What the dispatcher needs. */
export interface DispatchDeps {
  api: Api;
  token: string;
  apiRoot: string;
  logger: Logger;
  clock: Clock;
  /** Answer an unanswered callback query after this long (Telegram gives up at ~15 s). */
  callbackDeadlineMs: number;
  /** Largest image passed to the model, in bytes. */
  maxImageBytes: number;
  /** Give up on a photo download after this long. */
  downloadTimeoutMs: number;
}

/** Toast text is capped by Telegram at 200 characters. */
const TOAST_MAX = 200;

export class TelegramDispatcher {
  constructor(readonly deps: DispatchDeps) {}

  /** A responder that answers the callback query at most once. */
  responder(callbackId: string): Responder & { answered: () => boolean } {
    let answered = false;
    const respond = async (reply: { text: string; ephemeral?: boolean }) => {
      if (answered) return;
      answered = true;
      try {
        await this.deps.api.raw.answerCallbackQuery({
          callback_query_id: callbackId,
          ...(reply.text ? { text: reply.text.slice(0, TOAST_MAX) } : {}),
        });
      } catch (err) {
        // A late or duplicate answer is harmless: the press was already acknowledged or expired.
        this.deps.logger.warn(
          { err: err instanceof Error ? err.message : String(err) },
          'could not answer a Telegram button press',
        );
      }
    };
    return Object.assign(respond, { answered: () => answered });
  }

  /** Translates an update and delivers it; never throws (a bad update must not stop polling). */
  async dispatch(update: Update, me: UserFromGetMe, sink: EventSink): Promise<void> {
    const responders = new Map<string, ReturnType<TelegramDispatcher['responder']>>();
    let translated: ReturnType<typeof translateUpdate>;
    try {
      translated = translateUpdate(update, me, (id) => {
        const r = this.responder(id);
        responders.set(id, r);
        return r;
      });
    } catch (err) {
      // A payload missing what the Bot API documents (a message without its chat): logged, skipped.
      this.deps.logger.error(
        {
          err: err instanceof Error ? err.message : String(err),
          kind: updateKind(update),
          update: update.update_id,
        },
        'could not read a Telegram update; it was skipped',
      );
      translated = undefined;
    }
    if (!translated) {
      const queryId = update.callback_query?.id;
      if (typeof queryId === 'string') await this.responder(queryId)({ text: '' });
      return;
    }
    const responder = translated.callbackQueryId ? responders.get(translated.callbackQueryId) : undefined;
    const deadline = responder
      ? this.deps.clock.setTimeout(() => void responder({ text: '' }), this.deps.callbackDeadlineMs)
      : undefined;
    try {
      const event = translated.photoFileId
        ? await this.#withPhoto(translated.event, translated.photoFileId)
        : translated.event;
      await sink(event);
    } catch (err) {
      this.deps.logger.error(
        { err: err instanceof Error ? err.message : String(err), update: update.update_id },
        'the bot failed to accept a Telegram update',
      );
      if (responder) await responder({ text: 'Sorry, that did not work. Please try again.' });
    } finally {
      if (deadline !== undefined && responder?.answered()) this.deps.clock.clearTimeout(deadline);
    }
  }

  async #withPhoto(event: ChatEvent, fileId: string): Promise<ChatEvent> {
    if (event.type !== 'message') return event;
    const image = await this.#download(fileId);
    const attachments: Attachment[] = (event.attachments ?? []).map((a) =>
      a.kind === 'image' && image ? { ...a, ...image } : a,
    );
    return { ...event, attachments };
  }

  /** Downloads a file; undefined (with a log line) when it is too big or unreachable. */
  async #download(fileId: string): Promise<{ data: string; mediaType: string } | undefined> {
    try {
      const file = await this.deps.api.raw.getFile({ file_id: fileId });
      if (!file.file_path || (file.file_size ?? 0) > this.deps.maxImageBytes) return undefined;
      const url = `${this.deps.apiRoot}/file/bot${this.deps.token}/${file.file_path}`;
      // A stalled download must not hold up the chat's later messages for long.
      const response = await fetch(url, { signal: AbortSignal.timeout(this.deps.downloadTimeoutMs) });
      if (!response.ok) throw new Error(`file download answered ${response.status}`);
      const data = Buffer.from(await response.arrayBuffer());
      if (data.length > this.deps.maxImageBytes) return undefined;
      const mediaType = /\.png$/i.test(file.file_path)
        ? 'image/png'
        : /\.webp$/i.test(file.file_path)
          ? 'image/webp'
          : 'image/jpeg';
      return { data: data.toString('base64'), mediaType };
    } catch (err) {
      // The error may carry the file URL, which holds the token: log only its message, scrubbed.
      const message = (err instanceof Error ? err.message : String(err))
        .split(this.deps.token)
        .join('[redacted]');
      this.deps.logger.warn({ err: message }, 'could not download a Telegram photo; passing it without data');
      return undefined;
    }
  }
}

/** The update's kind (`message`, `callback_query`, …): the one field besides update_id it carries. */
export function updateKind(update: Update): string {
  return Object.keys(update).find((k) => k !== 'update_id') ?? 'unknown';
}
