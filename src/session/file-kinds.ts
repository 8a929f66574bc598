/**
 * What a received file is, read from its content (the platform's media type
 * is a claim, and the Messages API refuses an image whose declared type does
 * not match its bytes): an image the model reads, a PDF, UTF-8 text, or
 * anything else. PDF limits come from the PDF support page of
 * platform.claude.com/docs: at most 100 pages and 32 MB per request, all
 * content included; standard PDFs only (no passwords or encryption).
 */
import { asText, type ImageMediaType, isPdf, sniffImage } from '../media-type.js';

/** Most pages of PDF one request may carry (PDF support page). */
export const MAX_PDF_PAGES_PER_REQUEST = 100;
/**
 * Most base64 of images and PDFs kept in one request. The API's limit is
 * 32 MB for the whole request; the rest is left to the conversation's text.
 */
export const MAX_MEDIA_BASE64_PER_REQUEST = 24 * 1024 * 1024;
/** Tokens a PDF page costs: its text (1,500-3,000 tokens per page, PDF support page) and its picture. */
export const PDF_PAGE_TOKENS = 3_000;

/** A file's content as the session judged it. */
export type FileKind =
  | { kind: 'image'; mediaType: ImageMediaType }
  | { kind: 'pdf'; pages: number; encrypted: boolean }
  | { kind: 'text'; text: string }
  | { kind: 'binary' };

/**
 * Pages of a PDF, read from its objects: `/Type /Page` entries, or the page
 * tree's `/Count` when the pages sit in compressed object streams. At least 1.
 */
export function pdfPages(pdf: Buffer): number {
  const text = pdf.toString('latin1');
  const pages = text.match(/\/Type\s*\/Page(?![A-Za-z])/g)?.length ?? 0;
  let counted = 0;
  for (const m of text.matchAll(/\/Count\s+(\d{1,6})/g)) counted = Math.max(counted, Number(m[1]));
  return Math.max(pages, counted, 1);
}

/** Judges a file by its content. */
export function fileKind(bytes: Uint8Array): FileKind {
  const image = sniffImage(bytes);
  if (image) return { kind: 'image', mediaType: image };
  if (isPdf(bytes)) {
    const pdf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return {
      kind: 'pdf',
      pages: pdfPages(pdf),
      encrypted: /\/Encrypt(?![A-Za-z])/.test(pdf.toString('latin1')),
    };
  }
  const text = asText(bytes);
  return text === undefined ? { kind: 'binary' } : { kind: 'text', text };
}
