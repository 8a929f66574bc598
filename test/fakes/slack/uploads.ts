/**
 * The fake's file uploads, as https://docs.slack.dev/reference/methods/files.getUploadURLExternal
 * and files.completeUploadExternal describe them: getUploadURLExternal takes
 * `filename` and `length` (0 or missing: `missing_argument`; over the
 * workspace's limit: `file_upload_size_restricted`) and returns an
 * `upload_url` and `file_id`; the bytes are POSTed there, raw or as
 * multipart, and answered 200; completeUploadExternal takes `files`
 * (`[{id, title}]`, a JSON string in a form body), `channel_id`,
 * `thread_ts` and `initial_comment`, and shares the files in that thread as
 * one message from the bot. A file never uploaded cannot be completed.
 * The retired files.upload answers `method_deprecated`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { imageSize } from 'image-size';
import { isMultipart, readMultipart } from '../multipart.js';
import type { Args, MethodContext, MethodResult } from './methods.js';
import type { FakeSlackState } from './state.js';

const ok = (body: Args = {}): MethodResult => ({ body: { ok: true, ...body } });
const fail = (error: string): MethodResult => ({ body: { ok: false, error } });

/** The media type a person's Slack client would show the file as. */
function sniff(data: Buffer): string {
  try {
    const type = imageSize(data).type;
    if (type === 'png' || type === 'gif' || type === 'webp') return `image/${type}`;
    if (type === 'jpg') return 'image/jpeg';
  } catch {
    // Not an image.
  }
  return 'application/octet-stream';
}

/** files.getUploadURLExternal, files.completeUploadExternal and the retired files.upload. */
export const UPLOAD_METHODS: Record<string, (args: Args, ctx: MethodContext) => MethodResult> = {
  'files.getUploadURLExternal': (a, ctx) => {
    const length = Number(a.length);
    if (!a.filename || !Number.isInteger(length) || length <= 0) return fail('missing_argument');
    if (length > ctx.limits.maxUploadBytes) return fail('file_upload_size_restricted');
    const id = `F${String(ctx.state.uploads.size + 1).padStart(8, '0')}U`;
    ctx.state.uploads.set(id, { id, filename: String(a.filename), length });
    return ok({ upload_url: `${ctx.baseUrl}/upload/v1/${id}`, file_id: id });
  },
  'files.completeUploadExternal': (a, ctx) => {
    const files = typeof a.files === 'string' ? (JSON.parse(a.files) as unknown) : a.files;
    if (!Array.isArray(files) || files.length === 0) return fail('invalid_arguments');
    const pending = files.map((f: { id?: string; title?: string }) => ({
      upload: ctx.state.uploads.get(String(f.id)),
      title: f.title,
    }));
    if (pending.some((p) => p.upload?.data === undefined)) return fail('file_not_found');
    const shared = pending.map(({ upload, title }) => {
      const data = upload?.data ?? Buffer.alloc(0);
      return {
        id: upload?.id ?? '',
        name: upload?.filename ?? '',
        title: title ?? '',
        mimetype: sniff(data),
        data,
      };
    });
    if (a.channel_id) {
      const threadTs = a.thread_ts ? String(a.thread_ts) : undefined;
      ctx.state.add({
        channel: String(a.channel_id),
        ts: ctx.state.nextTs(),
        ...(threadTs ? { threadTs } : {}),
        user: ctx.botUserId,
        botId: ctx.botId,
        text: typeof a.initial_comment === 'string' ? a.initial_comment : '',
        files: shared,
      });
    }
    return ok({ files: shared.map((f) => ({ id: f.id, title: f.title })) });
  },
  'files.upload': () => fail('method_deprecated'),
};

/** Serves `POST /upload/v1/<id>`: stores the bytes of a pending upload; true when it handled the request. */
export async function receiveUpload(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  state: FakeSlackState,
): Promise<boolean> {
  if (req.method !== 'POST' || !path.startsWith('/upload/v1/')) return false;
  const upload = state.uploads.get(path.slice('/upload/v1/'.length));
  let data: Buffer;
  if (isMultipart(req)) {
    const { files } = await readMultipart(req);
    data = files[0]?.data ?? Buffer.alloc(0);
  } else {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    data = Buffer.concat(chunks);
  }
  if (!upload || data.length !== upload.length) {
    // Not the length promised to getUploadURLExternal: Slack's upload service refuses it.
    res.writeHead(400, { 'content-type': 'text/plain' }).end('upload refused');
    return true;
  }
  upload.data = data;
  res.writeHead(200, { 'content-type': 'text/plain' }).end(`OK - ${data.length}`);
  return true;
}
