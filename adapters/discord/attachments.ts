/**
 * Message attachments for the core. Images the model can read (JPEG, PNG,
 * GIF, WebP, up to 5 MB) are downloaded from their attachment URL and passed
 * base64-encoded; an image that cannot be fetched is passed without data so
 * the core tells the person to send it again. Other files are described by
 * kind only.
 */
import type { Attachment as DiscordAttachment } from 'discord.js';
import type { Attachment } from '../../src/bot/adapter-contract.js';
import { boundedDownload } from '../../src/download.js';
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
      // The declared size is Discord's word; the download itself is cut off at the limit too.
      const { bytes } = await boundedDownload(a.url, {
        maxBytes: MAX_IMAGE_BYTES,
        timeoutMs: DOWNLOAD_TIMEOUT_MS,
      });
      out.push({ ...base, data: bytes.toString('base64') });
    } catch (err) {
      logger.warn({ err, name: a.name }, 'could not download a Discord image');
      out.push(base);
    }
  }
  return out;
}
