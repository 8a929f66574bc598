/**
 * How a file the agent sends (SendFile) reaches the chat: checked against
 * the chat's upload limits first (a clear answer to the model, not a failed
 * call), after the reply text written before it (the text so far is made
 * permanent, as before an approval), and through the outbox, so the upload
 * is paced and retried with the chat's other calls.
 */
import { formatBytes } from '../bytes.js';
import { describeError, isErrorCode } from '../errors.js';
import type { Logger } from '../logger.js';
import { isImageMediaType } from '../media-type.js';
import type { FileDelivery, FileSender, OutboundFile } from '../vocabulary.js';
import type { Outbox, ReplyStream } from './stream/types.js';

/** What a turn's file delivery works with. */
export interface FileDeliveryContext {
  chat: string;
  outbox: Outbox;
  reply: ReplyStream;
  logger: Logger;
  /** False once the chat has moved on from this turn. */
  isCurrent: () => boolean;
}

/** The file delivery a turn lends its session (`submit(..., { sendFile })`). */
export function chatFileSender(ctx: FileDeliveryContext): FileSender {
  return {
    get maxBytes() {
      return ctx.outbox.capabilities(ctx.chat).maxUploadBytes;
    },
    send: (file) => deliver(ctx, file),
  };
}

async function deliver(ctx: FileDeliveryContext, file: OutboundFile): Promise<FileDelivery> {
  const { chat, outbox, reply, logger } = ctx;
  const caps = outbox.capabilities(chat);
  const limit = caps.maxUploadBytes;
  if (limit === undefined)
    return { error: 'This chat cannot take files; describe the result in text instead.' };
  const size = file.bytes.length;
  if (size > limit) {
    return {
      error: `${file.name} is ${formatBytes(size)} (${size} bytes), over this chat's upload limit of ${formatBytes(limit)} (${limit} bytes). Compress it, split it, or send a smaller version.`,
    };
  }
  if (!ctx.isCurrent()) return { error: 'The turn was stopped before the file went out; it was not sent.' };
  const inline = isImageMediaType(file.mediaType) && size <= (caps.maxImageUploadBytes ?? limit);
  const kind = inline ? 'image' : 'document';
  try {
    // The text written before the file goes first, in its own message, as before an approval prompt.
    await reply.checkpoint();
  } catch (err) {
    logger.warn({ chat, err: describeError(err) }, 'checkpoint before a file failed');
  }
  let caption = file.caption;
  if (
    caption !== undefined &&
    caps.maxCaptionLength !== undefined &&
    caption.length > caps.maxCaptionLength
  ) {
    // Too long to go with the file: said just before it, whole, rather than cut.
    await outbox.send(chat, caption, { plain: true }).catch((err: unknown) => {
      logger.warn({ chat, err: describeError(err) }, 'could not send a long caption');
    });
    caption = undefined;
  }
  try {
    await outbox.sendFile(chat, {
      name: file.name,
      path: file.path,
      bytes: file.bytes,
      mediaType: file.mediaType,
      kind,
      ...(caption === undefined ? {} : { caption }),
    });
  } catch (err) {
    if (isErrorCode(err, 'FILE_TOO_LARGE')) {
      return {
        error: `The chat refused ${file.name} as too large (${formatBytes(size)}): ${describeError(err)}`,
      };
    }
    return { error: `${file.name} could not be sent: ${describeError(err)}` };
  }
  return { ok: true, shownAs: caps.filesAsPaths ? 'path' : kind };
}
