/**
 * Reads a multipart/form-data request body the way the platforms' servers
 * do, with busboy (it accepts grammY's compact part headers, which undici's
 * own parser refuses): the text fields, and the files with their field
 * name, file name and bytes.
 */
import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';

/** One uploaded file part. */
export interface UploadedPart {
  /** The form field that carried it (`photo`, `files[0]`, or grammY's attach id). */
  field: string;
  filename: string;
  mimeType: string;
  data: Buffer;
}

/** A parsed multipart body. */
export interface MultipartBody {
  fields: Record<string, string>;
  files: UploadedPart[];
}

/** True when the request is multipart/form-data. */
export function isMultipart(req: IncomingMessage): boolean {
  return (req.headers['content-type'] ?? '').toLowerCase().startsWith('multipart/form-data');
}

/** Parses a multipart body from `req` (or from `body`, when it was read already). */
export function readMultipart(req: IncomingMessage, body?: Buffer): Promise<MultipartBody> {
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {};
    const files: UploadedPart[] = [];
    const parser = busboy({ headers: req.headers, limits: { fieldSize: 64 * 1024 * 1024 } });
    parser.on('field', (name, value) => {
      fields[name] = value;
    });
    parser.on('file', (field, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () =>
        files.push({
          field,
          filename: info.filename ?? '',
          mimeType: info.mimeType,
          data: Buffer.concat(chunks),
        }),
      );
    });
    parser.on('close', () => resolve({ fields, files }));
    parser.on('error', reject);
    if (body) parser.end(body);
    else req.pipe(parser);
  });
}
