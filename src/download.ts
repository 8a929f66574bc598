/**
 * Every download from a platform (a photo, an image, an attachment) goes
 * through one bounded fetch: the body is streamed and cut off as soon as it
 * passes the byte limit (a missing or lying Content-Length changes nothing),
 * and the whole request, body included, is aborted when it takes longer
 * than the time limit. A hostile or broken server can cost at most
 * `maxBytes` of memory and `timeoutMs` of waiting per download.
 */
import { type Clock, systemClock } from './clock.js';
import { SwitchboardError } from './errors.js';

/** Limits and request details of {@link boundedDownload}. */
export interface BoundedDownloadOptions {
  /** Largest body accepted, in bytes. */
  maxBytes: number;
  /** Longest the whole download (headers and body) may take. */
  timeoutMs: number;
  headers?: Record<string, string>;
  /** `error` refuses redirects (a token in the headers must not follow one elsewhere). */
  redirect?: 'follow' | 'error' | 'manual';
  /** Stops the download early (the caller gave up). */
  signal?: AbortSignal;
  clock?: Clock;
}

/** A finished download. */
export interface Download {
  bytes: Buffer;
  /** The Content-Type header, or '' when absent. */
  contentType: string;
}

/**
 * Fetches `url` within `maxBytes` and `timeoutMs`. Throws `DOWNLOAD_TOO_LARGE`
 * (detail: `limit`) past the byte limit and `DOWNLOAD_FAILED` (detail:
 * `status` when the server answered) for an error status, a timeout or a
 * network failure. The error messages never hold the URL (it may carry a
 * token).
 */
export async function boundedDownload(url: string, options: BoundedDownloadOptions): Promise<Download> {
  const clock = options.clock ?? systemClock;
  const controller = new AbortController();
  const timer = clock.setTimeout(
    () => controller.abort(new SwitchboardError('DOWNLOAD_FAILED', timeoutMessage(options.timeoutMs))),
    options.timeoutMs,
  );
  const onCallerAbort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onCallerAbort, { once: true });
  try {
    const res = await fetch(url, {
      signal: controller.signal,
      ...(options.headers ? { headers: options.headers } : {}),
      ...(options.redirect ? { redirect: options.redirect } : {}),
    });
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      throw new SwitchboardError('DOWNLOAD_FAILED', `The download was answered with HTTP ${res.status}.`, {
        detail: { status: res.status },
      });
    }
    const declared = Number(res.headers.get('content-length') ?? Number.NaN);
    if (declared > options.maxBytes) {
      await res.body?.cancel().catch(() => undefined);
      throw tooLarge(options.maxBytes);
    }
    const bytes = await readCapped(res, options.maxBytes);
    return { bytes, contentType: res.headers.get('content-type') ?? '' };
  } catch (err) {
    if (err instanceof SwitchboardError) throw err;
    if (controller.signal.aborted && controller.signal.reason instanceof SwitchboardError) {
      throw controller.signal.reason;
    }
    throw new SwitchboardError('DOWNLOAD_FAILED', `The download failed: ${describe(err)}`, { cause: err });
  } finally {
    clock.clearTimeout(timer);
    options.signal?.removeEventListener('abort', onCallerAbort);
  }
}

async function readCapped(res: Response, maxBytes: number): Promise<Buffer> {
  if (!res.body) return Buffer.alloc(0);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}

/** Why a file has no content, in the fields an inbound attachment carries. */
export type DownloadProblem = { problem: 'too-large'; limitBytes: number } | { problem: 'download-failed' };

/**
 * The problem fields for a failed {@link boundedDownload}: `too-large` with
 * the limit it passed, anything else `download-failed`.
 */
export function downloadProblem(err: unknown): DownloadProblem {
  if (err instanceof SwitchboardError && err.code === 'DOWNLOAD_TOO_LARGE') {
    const limit = err.detail.limit;
    if (typeof limit === 'number') return { problem: 'too-large', limitBytes: limit };
  }
  return { problem: 'download-failed' };
}

/** The problem fields for a file whose declared size is already over `limit`: nothing is fetched. */
export function declaredTooLarge(size: number | undefined, limit: number): DownloadProblem | undefined {
  return size !== undefined && size > limit ? { problem: 'too-large', limitBytes: limit } : undefined;
}

function tooLarge(limit: number): SwitchboardError {
  return new SwitchboardError(
    'DOWNLOAD_TOO_LARGE',
    `The file is larger than ${limit} bytes, the most the bot downloads; send a smaller one.`,
    { detail: { limit } },
  );
}

function timeoutMessage(ms: number): string {
  return `The download took longer than ${Math.round(ms / 1000)} s and was stopped; please send the file again.`;
}

/** An error's message without any URL in it (a file URL may carry a bot token). */
function describe(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/\bhttps?:\/\/\S+/g, '[url]');
}
