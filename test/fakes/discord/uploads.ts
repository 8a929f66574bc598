/**
 * Messages with files, as https://discord.com/developers/docs/reference#uploading-files
 * describes them: multipart/form-data with the JSON body in `payload_json`
 * and each file in a `files[n]` part; files over the upload limit (10 MiB
 * for a bot by default) are answered 413 with JSON error code 40005
 * "Request entity too large" (https://discord.com/developers/docs/topics/opcodes-and-status-codes#json).
 * An uploaded file becomes an attachment of the message, served by the fake
 * like a person's.
 */
import type { IncomingMessage } from 'node:http';
import { imageSize } from 'image-size';
import { readMultipart, type UploadedPart } from '../multipart.js';
import type { FakeAttachment } from './model.js';

/** Discord's default upload limit for bots. */
export const DISCORD_UPLOAD_LIMIT = 10 * 1024 * 1024;

/** A multipart message body: the JSON of `payload_json`, with the `files[n]` parts kept aside. */
export async function readMultipartMessage(req: IncomingMessage): Promise<Record<string, unknown>> {
  const { fields, files } = await readMultipart(req);
  const payload = fields.payload_json ? (JSON.parse(fields.payload_json) as Record<string, unknown>) : {};
  return { ...payload, __files: files.filter((f) => /^files\[\d+\]$/.test(f.field)) };
}

/** The files a message body carried (none for a JSON body). */
export function uploadedFiles(body: Record<string, unknown>): UploadedPart[] {
  return (body.__files as UploadedPart[] | undefined) ?? [];
}

/** The 413 Discord answers to files over the limit, or undefined. */
export function checkUploadSize(
  files: UploadedPart[],
  limit: number,
): { status: number; body: Record<string, unknown> } | undefined {
  if (files.every((f) => f.data.length <= limit)) return undefined;
  return { status: 413, body: { code: 40005, message: 'Request entity too large' } };
}

/** The content type Discord reports for an attachment: read from its bytes for images. */
function contentType(part: UploadedPart): string {
  try {
    const type = imageSize(part.data).type;
    if (type === 'jpg') return 'image/jpeg';
    if (type === 'png' || type === 'gif' || type === 'webp') return `image/${type}`;
  } catch {
    // Not an image: what the client declared.
  }
  return part.mimeType || 'application/octet-stream';
}

/** Stores the uploaded files and returns them as the message's attachments. */
export function storeUploads(
  files: UploadedPart[],
  store: Map<string, { contentType: string; data: Buffer }>,
  baseUrl: string,
  newId: () => string,
): FakeAttachment[] {
  return files.map((f) => {
    const id = newId();
    const url = `${baseUrl}/attachments/${id}/${encodeURIComponent(f.filename)}`;
    const type = contentType(f);
    store.set(id, { contentType: type, data: f.data });
    return { id, filename: f.filename, size: f.data.length, url, proxy_url: url, content_type: type };
  });
}
