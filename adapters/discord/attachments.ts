/**
 * Message attachments for the core. Images and documents are downloaded from
 * their attachment URL within the bot's file limit (the declared size is
 * checked first, the download is cut off at the limit too) and handed on as
 * bytes; a download that fails or is too large is handed on with its
 * problem, so the core names the file in its answer. Audio (voice messages
 * and audio files) gets the same download, called by the core only when it
 * transcribes it; video is described by kind only.
 */
import { type Attachment as DiscordAttachment, type Message, MessageReferenceType } from 'discord.js';
import type { Attachment } from '../../src/bot/adapter-contract.js';
import { boundedDownload, declaredTooLarge, downloadProblem } from '../../src/download.js';
import type { Logger } from '../../src/logger.js';
import { declaredKind } from '../../src/media-type.js';

/** Limits of {@link convertAttachments}. */
export interface DownloadLimits {
  /** Largest file downloaded, in bytes. */
  maxFileBytes: number;
  /** Give up on one download after this long. */
  downloadTimeoutMs: number;
}

/** The bot's default file limit (SWITCHBOARD_MAX_FILE_MB), 20 MB, and a 30 s stall limit. */
export const DEFAULT_DOWNLOAD_LIMITS: DownloadLimits = {
  maxFileBytes: 20 * 1024 * 1024,
  downloadTimeoutMs: 30_000,
};

/** Converts Discord attachments, downloading images and documents. */
export async function convertAttachments(
  attachments: Iterable<DiscordAttachment>,
  logger: Logger,
  limits: DownloadLimits = DEFAULT_DOWNLOAD_LIMITS,
): Promise<Attachment[]> {
  return Promise.all([...attachments].map((a) => convertOne(a, logger, limits)));
}

async function convertOne(a: DiscordAttachment, logger: Logger, limits: DownloadLimits): Promise<Attachment> {
  const kind = declaredKind(a.contentType);
  const mediaType = a.contentType?.split(';')[0]?.trim();
  const base: Attachment = { kind, name: a.name, size: a.size, ...(mediaType ? { mediaType } : {}) };
  if (kind === 'audio') {
    // Voice messages carry `duration_secs`; audio is fetched only if the core transcribes it.
    const audio: Attachment = { ...base, ...(a.duration === null ? {} : { durationSeconds: a.duration }) };
    return { ...audio, download: () => fetchOne(a, audio, logger, limits) };
  }
  if (kind !== 'image' && kind !== 'document') return base;
  return fetchOne(a, base, logger, limits);
}

/** `base` with the attachment's bytes, or with the problem that kept them. */
async function fetchOne(
  a: DiscordAttachment,
  base: Attachment,
  logger: Logger,
  limits: DownloadLimits,
): Promise<Attachment> {
  const kind = base.kind;
  const declared = declaredTooLarge(a.size, limits.maxFileBytes);
  if (declared) return { ...base, ...declared };
  try {
    const { bytes } = await boundedDownload(a.url, {
      maxBytes: limits.maxFileBytes,
      timeoutMs: limits.downloadTimeoutMs,
    });
    return { ...base, bytes, size: bytes.length };
  } catch (err) {
    logger.warn({ err, kind }, 'could not download a Discord attachment');
    return { ...base, ...downloadProblem(err) };
  }
}

/** What a message carries for the model: its own text, forwarded messages, files and stickers. */
export interface MessageParts {
  /** Text of each forwarded message (Discord's `message_snapshots`), in order. */
  forwarded: string[];
  /** Files of the message and of what it forwards. */
  files: DiscordAttachment[];
  /** Stickers and polls: things the model cannot read, answered with one line. */
  unreadable: Attachment[];
}

/**
 * The parts of a message, forwards included: a forward carries its text and
 * files only inside the snapshot, its own content is empty.
 */
export function messageParts(message: Message): MessageParts {
  const snapshots =
    message.reference?.type === MessageReferenceType.Forward
      ? [...(message.messageSnapshots?.values() ?? [])]
      : [];
  const files = [
    ...message.attachments.values(),
    ...snapshots.flatMap((s) => [...(s.attachments?.values() ?? [])]),
  ];
  const stickers = (message.stickers?.size ?? 0) + snapshots.reduce((n, s) => n + (s.stickers?.size ?? 0), 0);
  const unreadable: Attachment[] = [];
  if (stickers > 0) unreadable.push({ kind: 'sticker' });
  if (message.poll) unreadable.push({ kind: 'other' });
  return {
    forwarded: snapshots.map((s) => s.content ?? '').filter((t) => t.trim().length > 0),
    files,
    unreadable,
  };
}

/** The text the model sees: the person's words, then each forwarded message marked as such. */
export function withForwarded(text: string, forwarded: readonly string[]): string {
  const quoted = forwarded.map((t) => `(Forwarded message)\n${t}`);
  return [text, ...quoted].filter((t) => t.length > 0).join('\n\n');
}
