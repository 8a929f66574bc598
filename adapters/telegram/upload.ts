/**
 * Files into a Telegram chat: images with sendPhoto (shown inline), other
 * files with sendDocument, uploaded as multipart/form-data through grammY's
 * InputFile, in the chat's forum topic. Limits from
 * https://core.telegram.org/bots/api#sending-files and #sendphoto: photos
 * at most 10 MB, with width + height at most 10000 and a ratio at most 20;
 * other files 50 MB; captions 1024 characters. A photo Telegram will not
 * take for its dimensions goes again as a document, so the file still
 * arrives. The 429s reach the core's scheduler (these methods are outbox
 * methods, see api.ts).
 */
import { type Api, GrammyError, InputFile } from 'grammy';
import type { OutboundFile, SentMessage } from '../../src/bot/adapter-contract.js';
import { SwitchboardError } from '../../src/errors.js';
import { parseChatKey } from './chat-key.js';
import { toSwitchboardError } from './errors.js';

/** Largest photo sendPhoto takes. */
export const MAX_PHOTO_BYTES = 10 * 1024 * 1024;
/** Largest file a bot uploads through the Bot API. */
export const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;
/** Longest caption, after entity parsing (captions go out without markup, so as written). */
export const MAX_CAPTION_LENGTH = 1024;

/** A photo Telegram refuses for what it is, not for its size: worth sending as a document. */
function photoRefused(err: unknown): boolean {
  return (
    err instanceof GrammyError &&
    err.error_code === 400 &&
    /PHOTO_INVALID_DIMENSIONS|IMAGE_PROCESS_FAILED|PHOTO_EXT_INVALID/i.test(err.description)
  );
}

/**
 * A file name as the multipart part's name: grammY writes it unquoted in the
 * part header, so anything but letters, digits, dot, dash and underscore
 * becomes `_` (never a header break or a quote).
 */
export function partFileName(name: string): string {
  const clean = name.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 120);
  return clean.replace(/^\.+/, '_') || 'file';
}

function mapError(err: unknown, method: string): SwitchboardError {
  if (err instanceof GrammyError && err.error_code === 413) {
    return new SwitchboardError(
      'FILE_TOO_LARGE',
      `Telegram refused the upload as too large (413 ${err.description}); bots may upload photos up to 10 MB and other files up to 50 MB.`,
      { cause: err, detail: { status: 413 } },
    );
  }
  return toSwitchboardError(err, method);
}

/** Uploads `file` into the chat (and topic) of `chatKey`. */
export async function uploadToTelegram(api: Api, chatKey: string, file: OutboundFile): Promise<SentMessage> {
  const chat = parseChatKey(chatKey);
  const common = {
    chat_id: chat.chatId,
    ...(chat.threadId === undefined ? {} : { message_thread_id: chat.threadId }),
    ...(file.caption ? { caption: file.caption } : {}),
  };
  const name = partFileName(file.name);
  if (file.kind === 'image') {
    try {
      const sent = await api.raw.sendPhoto({ ...common, photo: new InputFile(file.bytes, name) });
      return { messageId: String(sent.message_id) };
    } catch (err) {
      if (!photoRefused(err)) throw mapError(err, 'sendPhoto');
    }
  }
  try {
    const sent = await api.raw.sendDocument({ ...common, document: new InputFile(file.bytes, name) });
    return { messageId: String(sent.message_id) };
  } catch (err) {
    throw mapError(err, 'sendDocument');
  }
}
