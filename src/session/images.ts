/**
 * Images are checked against the Messages API's limits before they are
 * sent, so one oversized picture never reaches the API and locks the
 * session with the same 400 on every later request. Limits from the
 * Vision page of platform.claude.com/docs: at most 5 MB per image as
 * base64, at most 8000 × 8000 pixels, JPEG, PNG, GIF or WebP.
 */
import { imageSize } from 'image-size';
import { isImageMediaType } from '../media-type.js';

/** Largest base64 string the API takes for one image. */
export const MAX_IMAGE_BASE64_BYTES = 5 * 1024 * 1024;
/** Largest width or height the API takes. */
export const MAX_IMAGE_EDGE = 8000;

/** Width and height read from the image's header, or undefined when it cannot be read. */
export function imageDimensions(base64: string): { width: number; height: number } | undefined {
  try {
    // The header is at the start: decode only the first 64 KB.
    const head = Buffer.from(base64.slice(0, 87_384), 'base64');
    const { width, height } = imageSize(head);
    return width && height ? { width, height } : undefined;
  } catch {
    return undefined;
  }
}

const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

/**
 * Why the API would refuse this image, as a sentence for the chat, or
 * undefined when it is fine.
 */
export function imageProblem(mediaType: string, base64: string): string | undefined {
  if (!isImageMediaType(mediaType))
    return `it is ${mediaType || 'of an unknown type'}, and the model reads only JPEG, PNG, GIF and WebP`;
  if (base64.length > MAX_IMAGE_BASE64_BYTES)
    return `it is ${mb(base64.length)} as base64, over the API's 5 MB limit per image; send a smaller or compressed copy`;
  const size = imageDimensions(base64);
  if (!size) return 'its size could not be read (the file may be damaged)';
  if (size.width > MAX_IMAGE_EDGE || size.height > MAX_IMAGE_EDGE)
    return `it is ${size.width} × ${size.height} pixels, over the API's ${MAX_IMAGE_EDGE} × ${MAX_IMAGE_EDGE} limit; send a smaller copy`;
  return undefined;
}
