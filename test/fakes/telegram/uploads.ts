/**
 * The fake's file sends, sendPhoto and sendDocument, uploaded as
 * multipart/form-data the way https://core.telegram.org/bots/api#sending-files
 * describes: at most 10 MB for photos and 50 MB for other files (answered
 * 413 "Request Entity Too Large", as the Bot API answers an oversized
 * upload); a photo's width and height at most 10000 in total and their ratio
 * at most 20 (https://core.telegram.org/bots/api#sendphoto,
 * PHOTO_INVALID_DIMENSIONS); a photo that is no image IMAGE_PROCESS_FAILED;
 * captions 0-1024 characters after entity parsing ("message caption is too
 * long"). A sent file is a bot message whose text is its caption.
 */
import { imageSize } from 'image-size';
import type { UploadedPart } from '../multipart.js';
import { ApiError, type FakeMessage } from './state.js';
import { bad, chatIdOf, type Handler, type MethodContext, optNum, type Params } from './validate.js';

/** Upload limits the fake enforces, scalable by tests (defaults: the documented ones). */
export interface FakeUploadLimits {
  maxPhotoBytes: number;
  maxFileBytes: number;
  maxCaptionLength: number;
}

/** The documented limits for uploads through the Bot API. */
export const TELEGRAM_UPLOAD_LIMITS: FakeUploadLimits = {
  maxPhotoBytes: 10 * 1024 * 1024,
  maxFileBytes: 50 * 1024 * 1024,
  maxCaptionLength: 1024,
};

const tooLarge = () => new ApiError(413, 'Request Entity Too Large');

function uploadedPart(value: unknown, field: string): UploadedPart {
  const part = value as UploadedPart | undefined;
  if (!part || !Buffer.isBuffer(part.data)) {
    // A string here would be a file_id or URL; this fake takes uploads only.
    throw bad(`there is no ${field} in the request`);
  }
  return part;
}

function checkPhoto(part: UploadedPart, limits: FakeUploadLimits): void {
  if (part.data.length > limits.maxPhotoBytes) throw tooLarge();
  let size: { width?: number; height?: number };
  try {
    size = imageSize(part.data);
  } catch {
    throw bad('IMAGE_PROCESS_FAILED');
  }
  const { width = 0, height = 0 } = size;
  if (width === 0 || height === 0) throw bad('IMAGE_PROCESS_FAILED');
  if (width + height > 10_000 || Math.max(width, height) / Math.min(width, height) > 20) {
    throw bad('PHOTO_INVALID_DIMENSIONS');
  }
}

function sendFile(kind: 'photo' | 'document'): Handler {
  return (p: Params, ctx: MethodContext) => {
    const limits = ctx.uploads;
    const chatId = chatIdOf(p);
    const threadId = optNum(p, 'message_thread_id');
    const part = uploadedPart(p[kind], kind);
    if (part.data.length > limits.maxFileBytes) throw tooLarge();
    if (kind === 'photo') checkPhoto(part, limits);
    const caption = typeof p.caption === 'string' ? p.caption : '';
    if (caption.length > limits.maxCaptionLength) throw bad('message caption is too long');
    const message: FakeMessage = {
      chatId,
      messageId: ctx.state.nextMessageId(chatId),
      ...(threadId === undefined ? {} : { threadId }),
      fromBot: true,
      text: caption,
      source: caption,
      rich: false,
      deleted: false,
      history: [caption],
      file: { kind, name: part.filename, data: part.data },
    };
    ctx.state.putMessage(message);
    return {
      message_id: message.messageId,
      date: Math.floor(ctx.now / 1000),
      chat:
        chatId > 0
          ? { id: chatId, type: 'private', first_name: 'User' }
          : { id: chatId, type: 'supergroup', title: 'Group' },
      from: ctx.bot,
      ...(threadId === undefined ? {} : { message_thread_id: threadId, is_topic_message: true }),
      ...(caption ? { caption } : {}),
      ...(kind === 'photo'
        ? {
            photo: [
              {
                file_id: `p${message.messageId}`,
                file_unique_id: `up${message.messageId}`,
                width: 1,
                height: 1,
              },
            ],
          }
        : {
            document: {
              file_id: `d${message.messageId}`,
              file_unique_id: `ud${message.messageId}`,
              file_name: part.filename,
            },
          }),
    };
  };
}

/** sendPhoto and sendDocument. */
export const UPLOAD_METHODS: Record<string, Handler> = {
  sendPhoto: sendFile('photo'),
  sendDocument: sendFile('document'),
};

/**
 * A multipart request's fields as method parameters: JSON values decoded,
 * and each `attach://<id>` (grammY's form) or a part named after the
 * parameter itself replaced by the uploaded file.
 */
export function multipartParams(fields: Record<string, string>, files: UploadedPart[]): Params {
  const params: Params = {};
  for (const [key, value] of Object.entries(fields)) {
    const attached = /^attach:\/\/(.+)$/.exec(value);
    if (attached) {
      params[key] = files.find((f) => f.field === attached[1]);
      continue;
    }
    params[key] = /^[[{]/.test(value) ? JSON.parse(value) : value;
  }
  for (const file of files) if (!(file.field in params)) params[file.field] = file;
  return params;
}
