/**
 * A fake OpenAI-compatible transcription endpoint on loopback:
 * `POST /v1/audio/transcriptions`, multipart/form-data, parsed with busboy.
 * It enforces what the OpenAI audio API reference (Create transcription)
 * defines: a `file` part and a `model` field are required; the file's name
 * must end in one of the accepted formats (flac, mp3, mp4, mpeg, mpga, m4a,
 * ogg, wav, webm), and the name must agree with the container the bytes
 * hold (the service reads the format from the name); `response_format` is
 * one of json, text, srt, verbose_json, vtt, diarized_json; uploads are at
 * most 25 MB. Its
 * errors are the API's error object, `{ error: { message, type, param,
 * code } }`; a good request is answered with the Transcription object,
 * `{ text, usage: { type: 'duration', seconds } }`.
 *
 * What it "hears" is scripted: `say(text)` answers the next request with
 * that text; `answer(body)` with a recorded response; `fail(status)` with an
 * error; `hang()` never answers (a timeout). Its rules are checked against
 * the published OpenAPI description in test/transcribe/spec.test.ts.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isMultipart, readMultipart, type UploadedPart } from './multipart.js';

/** One request the fake took. */
export interface TranscriptionRequest {
  authorization: string | undefined;
  file: UploadedPart;
  model: string;
  responseFormat: string;
}

type Script =
  | { kind: 'text'; text: string; seconds?: number }
  | { kind: 'body'; body: unknown }
  | { kind: 'error'; status: number }
  | { kind: 'hang' };

/** The file extensions the fake takes: the reference's list. */
export const FAKE_EXTENSIONS = ['flac', 'mp3', 'mp4', 'mpeg', 'mpga', 'm4a', 'ogg', 'wav', 'webm'];
/** The response formats the fake takes. */
export const FAKE_FORMATS = ['json', 'text', 'srt', 'verbose_json', 'vtt', 'diarized_json'];
const MAX_BYTES = 25 * 1024 * 1024;

/** The container the bytes hold, as the extensions that name it. */
function containerOf(data: Buffer): string[] {
  const at = (s: string, offset = 0) => data.subarray(offset, offset + s.length).toString('latin1') === s;
  if (at('OggS')) return ['ogg', 'oga'];
  if (at('\x1a\x45\xdf\xa3')) return ['webm'];
  if (at('ftyp', 4)) return ['mp4', 'm4a'];
  if (at('ID3') || (data[0] === 0xff && ((data[1] ?? 0) & 0xe0) === 0xe0)) return ['mp3', 'mpeg', 'mpga'];
  if (at('RIFF') && at('WAVE', 8)) return ['wav'];
  if (at('fLaC')) return ['flac'];
  return [];
}

/** A running fake endpoint. */
export interface FakeTranscription {
  /** The endpoint's full URL. */
  url: string;
  /** Every request it took, in order (including refused ones that parsed). */
  requests: TranscriptionRequest[];
  /** Answers the next request with `text` (and `seconds` in usage, default 2). */
  say(text: string, seconds?: number): void;
  /** Answers the next request with `body` as it is (a recorded response). */
  answer(body: unknown): void;
  /** Answers the next request with an error status. */
  fail(status: number): void;
  /** Never answers the next request. */
  hang(): void;
  /** Resolves when `n` requests have arrived. */
  received(n: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts the fake; `key` makes it require `Authorization: Bearer <key>`. */
export async function startFakeTranscription(options: { key?: string } = {}): Promise<FakeTranscription> {
  const scripts: Script[] = [];
  const requests: TranscriptionRequest[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const hung = new Set<ServerResponse>();

  const error = (res: ServerResponse, status: number, message: string, type = 'invalid_request_error') => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message, type, param: null, code: null } }));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST' || req.url !== '/v1/audio/transcriptions') return error(res, 404, 'Not found');
    if (options.key && req.headers.authorization !== `Bearer ${options.key}`)
      return error(res, 401, 'Incorrect API key provided.', 'invalid_api_key');
    if (!isMultipart(req)) return error(res, 400, 'Expected multipart/form-data.');
    const body = await readMultipart(req);
    const file = body.files.find((f) => f.field === 'file');
    const model = body.fields.model ?? '';
    const responseFormat = body.fields.response_format ?? 'json';
    if (file) requests.push({ authorization: req.headers.authorization, file, model, responseFormat });
    for (const w of waiters.filter((w) => requests.length >= w.n)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
    if (!file) return error(res, 400, "Missing required parameter: 'file'.");
    if (!model) return error(res, 400, "Missing required parameter: 'model'.");
    if (!FAKE_FORMATS.includes(responseFormat))
      return error(res, 400, `Invalid response_format: ${responseFormat}.`);
    if (file.data.length > MAX_BYTES)
      return error(res, 413, 'Maximum content size limit (26214400) exceeded.');
    const extension = /\.([^.]+)$/.exec(file.filename)?.[1]?.toLowerCase() ?? '';
    if (!FAKE_EXTENSIONS.includes(extension))
      return error(res, 400, `Invalid file format. Supported formats: ${JSON.stringify(FAKE_EXTENSIONS)}`);
    if (!containerOf(file.data).includes(extension))
      return error(res, 400, 'Audio file might be corrupted or unsupported');
    const script = scripts.shift() ?? { kind: 'text', text: '' };
    if (script.kind === 'hang') {
      hung.add(res);
      return;
    }
    if (script.kind === 'error')
      return error(res, script.status, `Scripted failure ${script.status}.`, 'server_error');
    const answer =
      script.kind === 'body'
        ? script.body
        : { text: script.text, usage: { type: 'duration', seconds: script.seconds ?? 2 } };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer));
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => error(res, 500, String(err), 'server_error'));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/audio/transcriptions`,
    requests,
    say: (text, seconds) =>
      scripts.push({ kind: 'text', text, ...(seconds === undefined ? {} : { seconds }) }),
    answer: (body) => scripts.push({ kind: 'body', body }),
    fail: (status) => scripts.push({ kind: 'error', status }),
    hang: () => scripts.push({ kind: 'hang' }),
    received: (n) =>
      requests.length >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve })),
    async close() {
      for (const res of hung) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
