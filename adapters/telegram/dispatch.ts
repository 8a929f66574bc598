/**
 * Hands translated updates to the core's sink. Photos (largest size) and
 * documents are downloaded first, via getFile and the file endpoint, within
 * the bot's file limit and the Bot API's own 20 MB, so the core can save
 * them and the model can see them; voice notes and audio files get the same
 * download, called by the core only when it transcribes them;
 * every callback query is answered: by the core's responder, with an error
 * toast when the core fails, or empty after a deadline, so Telegram's
 * spinner never hangs.
 */
import { type Api, GrammyError } from 'grammy';
import type { Update, UserFromGetMe } from 'grammy/types';
import type { Attachment, ChatEvent, EventSink, Responder } from '../../src/bot/adapter-contract.js';
import type { Clock } from '../../src/clock.js';
import { boundedDownload, declaredTooLarge, downloadProblem } from '../../src/download.js';
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
  /** Largest file downloaded, in bytes (the bot's file limit). */
  maxFileBytes: number;
  /** Give up on a download after this long. */
  downloadTimeoutMs: number;
  /** Telegram's own servers: their 20 MB download limit applies (a local Bot API server has none). */
  botApiLimit: boolean;
}

/**
 * getFile: "For the moment, bots can download files of up to 20MB in size"
 * (https://core.telegram.org/bots/api#getfile); larger ones are answered
 * 400 "file is too big".
 */
export const BOT_API_DOWNLOAD_LIMIT = 20 * 1024 * 1024;

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
      const event = translated.fileId
        ? await this.#withFile(translated.event, translated.fileId)
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

  async #withFile(event: ChatEvent, fileId: string): Promise<ChatEvent> {
    if (event.type !== 'message') return event;
    const attachments = await Promise.all(
      (event.attachments ?? []).map((a) => {
        if (a.kind === 'image' || a.kind === 'document') return this.#download(fileId, a);
        // Audio is fetched only if the core transcribes it, when its turn comes.
        if (a.kind === 'audio') return { ...a, download: () => this.#download(fileId, a) };
        return a;
      }),
    );
    return { ...event, attachments };
  }

  /** The attachment with its content, or with the problem that kept it from being downloaded. */
  async #download(fileId: string, attachment: Attachment): Promise<Attachment> {
    const { maxFileBytes, botApiLimit } = this.deps;
    const limit = botApiLimit ? Math.min(maxFileBytes, BOT_API_DOWNLOAD_LIMIT) : maxFileBytes;
    const declared = declaredTooLarge(attachment.size, limit);
    if (declared) return { ...attachment, ...declared };
    try {
      const file = await this.deps.api.raw.getFile({ file_id: fileId });
      if (!file.file_path) throw new Error('getFile answered without a file_path');
      const over = declaredTooLarge(file.file_size, limit);
      if (over) return { ...attachment, ...over };
      const url = `${this.deps.apiRoot}/file/bot${this.deps.token}/${file.file_path}`;
      // Streamed and cut off at the limit (file_size may be absent), and given up when stalled so
      // the chat's later messages are not held up for long.
      const { bytes } = await boundedDownload(url, {
        maxBytes: limit,
        timeoutMs: this.deps.downloadTimeoutMs,
        clock: this.deps.clock,
      });
      return {
        ...attachment,
        bytes,
        size: bytes.length,
        ...photoType(attachment, file.file_path),
        ...audioName(attachment, file.file_path),
      };
    } catch (err) {
      if (err instanceof GrammyError && /file is too big/i.test(err.description)) {
        return { ...attachment, problem: 'too-large', limitBytes: Math.min(limit, BOT_API_DOWNLOAD_LIMIT) };
      }
      // The error may carry the file URL, which holds the token: log only its message, scrubbed.
      const message = (err instanceof Error ? err.message : String(err))
        .split(this.deps.token)
        .join('[redacted]');
      this.deps.logger.warn({ err: message, kind: attachment.kind }, 'could not download a Telegram file');
      return { ...attachment, ...downloadProblem(err) };
    }
  }
}

/** A photo's type from its path on Telegram's server (photos carry no mime_type); documents keep theirs. */
function photoType(attachment: Attachment, path: string): { mediaType?: string } {
  if (attachment.kind !== 'image') return {};
  if (/\.png$/i.test(path)) return { mediaType: 'image/png' };
  if (/\.webp$/i.test(path)) return { mediaType: 'image/webp' };
  return { mediaType: 'image/jpeg' };
}

/** A voice note's name from its path on Telegram's server (`voice/file_12.oga`): voice notes carry none. */
function audioName(attachment: Attachment, path: string): { name?: string } {
  if (attachment.kind !== 'audio' || attachment.name) return {};
  const name = path.split('/').at(-1);
  return name ? { name } : {};
}

/** The update's kind (`message`, `callback_query`, …): the one field besides update_id it carries. */
export function updateKind(update: Update): string {
  return Object.keys(update).find((k) => k !== 'update_id') ?? 'unknown';
}
