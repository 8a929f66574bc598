/**
 * Message attachments for the core. Images the model can read (JPEG, PNG,
 * GIF, WebP, up to 5 MB) are downloaded from their attachment URL and passed
 * base64-encoded; an image that cannot be fetched is passed without data so
 * the core tells the person to send it again. Other files are described by
 * kind only.
 */
import { type Attachment as DiscordAttachment, type Message, MessageReferenceType } from 'discord.js';
import type { Attachment } from '../../src/bot/adapter-contract.js';
import type { Logger } from '../../src/logger.js';

/** Largest image handed to the model, in bytes (the Messages API's limit). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

const READABLE_IMAGES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);
const DOWNLOAD_TIMEOUT_MS = 15_000;

function kindOf(contentType: string | null): Attachment['kind'] {
  const type = contentType ?? '';
  if (type.startsWith('image/')) return 'image';
  if (type.startsWith('audio/')) return 'audio';
  if (type.startsWith('video/')) return 'video';
  return 'document';
}

/** Converts Discord attachments, downloading readable images. */
export async function convertAttachments(
  attachments: Iterable<DiscordAttachment>,
  logger: Logger,
): Promise<Attachment[]> {
  const out: Attachment[] = [];
  for (const a of attachments) {
    const kind = kindOf(a.contentType);
    const mediaType = a.contentType?.split(';')[0]?.trim();
    const base: Attachment = { kind, name: a.name, ...(mediaType ? { mediaType } : {}) };
    if (kind !== 'image' || !mediaType || !READABLE_IMAGES.has(mediaType) || a.size > MAX_IMAGE_BYTES) {
      // An image the model cannot read is reported as a file, not as a failed download.
      out.push(
        kind === 'image' && !(mediaType && READABLE_IMAGES.has(mediaType))
          ? { ...base, kind: 'document' }
          : base,
      );
      continue;
    }
    try {
      const res = await fetch(a.url, { signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const bytes = Buffer.from(await res.arrayBuffer());
      if (bytes.length > MAX_IMAGE_BYTES) throw new Error(`image of ${bytes.length} bytes is over the limit`);
      out.push({ ...base, data: bytes.toString('base64') });
    } catch (err) {
      logger.warn({ err, name: a.name }, 'could not download a Discord image');
      out.push(base);
    }
  }
  return out;
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
