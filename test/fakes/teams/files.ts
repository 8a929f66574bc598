/**
 * Files in Teams bot chats, per "Send and receive files using bot"
 * (https://learn.microsoft.com/en-us/microsoftteams/platform/bots/how-to/bots-filesv4):
 * - received files arrive (personal chats) as
 *   `application/vnd.microsoft.teams.file.download.info` attachments whose
 *   `content.downloadUrl` is pre-authorised: a plain GET, no token;
 * - inline images arrive as attachments on the service URL
 *   (`<serviceUrl>v3/attachments/<id>/views/original`), fetched with the
 *   bot's token;
 * - to send a file the bot sends a file consent card (personal chats only);
 *   when the user accepts, Teams gives an OneDrive upload session URL the
 *   bot PUTs the bytes to (with `Content-Range: bytes 0-<n-1>/<n>`), then
 *   the bot sends a `file.info` card naming the uploaded file.
 */
import { randomUUID } from 'node:crypto';

/** A file the fake serves for download. */
export interface ServedFile {
  id: string;
  name: string;
  bytes: Buffer;
  contentType: string;
}

/** An upload session a consent answer opened, and what the bot put there. */
export interface UploadSession {
  fileId: string;
  uniqueId: string;
  name: string;
  /** The bytes the bot uploaded; undefined until it did. */
  bytes?: Buffer;
}

/** Downloads and upload sessions. */
export class FileStore {
  readonly downloads = new Map<string, ServedFile>();
  readonly uploads = new Map<string, UploadSession>();

  /** Serves `bytes` under a new id. */
  serve(name: string, bytes: Buffer, contentType = 'application/octet-stream'): ServedFile {
    const file = { id: randomUUID(), name, bytes, contentType };
    this.downloads.set(file.id, file);
    return file;
  }

  /** Opens an upload session for a consented file. */
  openUpload(name: string): UploadSession {
    const session = { fileId: randomUUID(), uniqueId: randomUUID(), name };
    this.uploads.set(session.fileId, session);
    return session;
  }

  /**
   * Takes one upload PUT: the whole file in one range. Answers the HTTP
   * status and body OneDrive would (201 with the item when complete).
   */
  receive(fileId: string, contentRange: string | undefined, body: Buffer): { status: number; body: unknown } {
    const session = this.uploads.get(fileId);
    if (session === undefined)
      return { status: 404, body: { error: { code: 'itemNotFound', message: 'Upload session not found' } } };
    const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(contentRange ?? '');
    if (range === null) {
      return {
        status: 400,
        body: {
          error: { code: 'invalidRequest', message: 'Content-Range "bytes <from>-<to>/<total>" is required' },
        },
      };
    }
    const [from, to, total] = [Number(range[1]), Number(range[2]), Number(range[3])];
    if (from !== 0 || to !== total - 1 || body.length !== total) {
      return {
        status: 400,
        body: {
          error: {
            code: 'invalidRange',
            message: `Content-Range ${contentRange} does not match ${body.length} bytes sent`,
          },
        },
      };
    }
    session.bytes = body;
    return { status: 201, body: { id: session.uniqueId, name: session.name, size: total, file: {} } };
  }
}
