/**
 * A file's media type read from its first bytes, not from its name or the
 * platform's claim. On the ground floor beside `bytes`: the session judges
 * received files with it, SendFile types the files it sends, and the bot
 * core decides what goes inline. PNG, JPEG, GIF and WebP are the images the
 * model reads and every chat platform shows inline.
 */

/** The image types the model reads and every platform shows inline. */
export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
/** One of {@link IMAGE_MEDIA_TYPES}. */
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];

const IMAGES: ReadonlySet<string> = new Set(IMAGE_MEDIA_TYPES);

/** True for PNG, JPEG, GIF and WebP. */
export function isImageMediaType(mediaType: string): mediaType is ImageMediaType {
  return IMAGES.has(mediaType);
}

/** True when `bytes` hold the ASCII/latin1 `signature` at offset `at`. */
export function hasSignature(bytes: Uint8Array, signature: string, at = 0): boolean {
  if (bytes.length < at + signature.length) return false;
  for (let i = 0; i < signature.length; i++) if (bytes[at + i] !== signature.charCodeAt(i)) return false;
  return true;
}

/** The image type its first bytes declare (PNG, JPEG, GIF, WebP), or undefined. */
export function sniffImage(bytes: Uint8Array): ImageMediaType | undefined {
  if (hasSignature(bytes, '\x89PNG\r\n\x1a\n')) return 'image/png';
  if (hasSignature(bytes, '\xff\xd8\xff')) return 'image/jpeg';
  if (hasSignature(bytes, 'GIF87a') || hasSignature(bytes, 'GIF89a')) return 'image/gif';
  if (hasSignature(bytes, 'RIFF') && hasSignature(bytes, 'WEBP', 8)) return 'image/webp';
  return undefined;
}

/** True when `bytes` start like a PDF. */
export function isPdf(bytes: Uint8Array): boolean {
  return hasSignature(bytes, '%PDF-');
}

/** Reads `bytes` as UTF-8 text; undefined when they hold a NUL or are not valid UTF-8. */
export function asText(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * The media type read from a file's content: PNG, JPEG, GIF and WebP
 * images, PDF, UTF-8 text (`text/plain; charset=utf-8`), else
 * `application/octet-stream`. A name ending in `.png` does not make a file
 * an image.
 */
export function sniffMediaType(bytes: Uint8Array): string {
  const known = sniffImage(bytes) ?? (isPdf(bytes) ? 'application/pdf' : undefined);
  if (known) return known;
  return asText(bytes) === undefined ? 'application/octet-stream' : 'text/plain; charset=utf-8';
}

/**
 * What a platform's declared media type says a shared file is: an image, a
 * sound, a video, or (anything else) a document. The claim only sorts the
 * file; its content is judged after download.
 */
export function declaredKind(mediaType: string | null | undefined): 'image' | 'audio' | 'video' | 'document' {
  if (mediaType?.startsWith('image/')) return 'image';
  if (mediaType?.startsWith('audio/')) return 'audio';
  if (mediaType?.startsWith('video/')) return 'video';
  return 'document';
}
