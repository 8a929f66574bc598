/**
 * A client of an OpenAI-compatible transcription endpoint
 * (`POST /v1/audio/transcriptions`, the OpenAI audio API reference): hosted
 * services and the whisper-based servers people run themselves speak it.
 * The request is multipart/form-data with the audio in `file` (under a name
 * whose extension the API accepts, see formats.ts), `model`, and
 * `response_format=json`, which every model and server supports; the answer
 * is the Transcription object, `{ text, usage? }`, where `usage` of type
 * `duration` gives the audio's length in seconds. Errors come as
 * `{ error: { message, type, code } }` with a 4xx or 5xx status.
 *
 * Each failure ends in one {@link SwitchboardError} (`TRANSCRIPTION_FAILED`)
 * whose message is a sentence a person can read; `detail.reason` says which
 * (`timeout`, `rejected`, `auth`, `server`, `network`, `format`,
 * `malformed`). The audio and the key never reach a message or a log.
 */
import { type Clock, systemClock } from '../clock.js';
import { SwitchboardError } from '../errors.js';
import { ACCEPTED_EXTENSIONS, audioFormat, uploadName } from './formats.js';

/** A recording to transcribe, as the platform sent it. */
export interface AudioInput {
  bytes: Uint8Array;
  /** The sender's file name, if any (its extension is replaced by the container's). */
  name?: string;
}

/** What the endpoint heard. */
export interface Transcript {
  /** The words, trimmed; empty when the endpoint heard none. */
  text: string;
  /** The audio's length as the endpoint measured it (`usage.seconds`), when it said. */
  seconds?: number;
}

/** Turns speech into text. */
export interface Transcriber {
  /** The model asked for, as the usage ledger records it. */
  readonly model: string;
  /** Transcribes one recording; rejects with `TRANSCRIPTION_FAILED` (or `ABORTED` when `signal` fires). */
  transcribe(audio: AudioInput, options?: { signal?: AbortSignal }): Promise<Transcript>;
}

/** Options of {@link createTranscriber}. */
export interface TranscriberOptions {
  /** The endpoint's full URL: `https://api.openai.com/v1/audio/transcriptions`. */
  url: string;
  /** The model: `gpt-4o-mini-transcribe`, `whisper-1`, `Systran/faster-whisper-small`. */
  model: string;
  /** Sent as `Authorization: Bearer`; a local server may need none. */
  apiKey?: string;
  /** Longest wait for one transcription, request and answer; default 120 s. */
  timeoutMs?: number;
  clock?: Clock;
  /** The fetch to use (default the global one). */
  fetch?: typeof fetch;
}

/** Default for {@link TranscriberOptions.timeoutMs}: a ten-minute note takes a local CPU server a while. */
export const DEFAULT_TRANSCRIBE_TIMEOUT_MS = 120_000;

const fail = (reason: string, message: string, extra: Record<string, unknown> = {}, cause?: unknown) =>
  new SwitchboardError('TRANSCRIPTION_FAILED', message, {
    detail: { reason, ...extra },
    ...(cause === undefined ? {} : { cause }),
  });

/** A client for one endpoint and model. */
export function createTranscriber(options: TranscriberOptions): Transcriber {
  const clock = options.clock ?? systemClock;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TRANSCRIBE_TIMEOUT_MS;
  const doFetch = options.fetch ?? fetch;
  return {
    model: options.model,
    async transcribe(audio, { signal } = {}) {
      const format = audioFormat(audio.bytes);
      if (!format)
        throw fail(
          'format',
          `the recording is in a format the transcription service does not take (it takes ${ACCEPTED_EXTENSIONS.join(', ')})`,
        );
      const form = new FormData();
      const bytes = new Uint8Array(audio.bytes); // a copy the Blob owns, whatever buffer the platform's bytes share
      form.append('file', new Blob([bytes], { type: format.mediaType }), uploadName(audio.name, format));
      form.append('model', options.model);
      form.append('response_format', 'json');
      const controller = new AbortController();
      const timer = clock.setTimeout(() => controller.abort(timedOut(timeoutMs)), timeoutMs);
      const onAbort = () => controller.abort(signal?.reason);
      if (signal?.aborted) onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        const res = await doFetch(options.url, {
          method: 'POST',
          body: form,
          signal: controller.signal,
          redirect: 'error',
          ...(options.apiKey ? { headers: { authorization: `Bearer ${options.apiKey}` } } : {}),
        });
        const body = await res.text();
        if (!res.ok) throw statusError(res.status, body);
        return parse(body);
      } catch (err) {
        if (signal?.aborted) throw new SwitchboardError('ABORTED', 'Stopped.', { cause: signal.reason });
        if (controller.signal.aborted && controller.signal.reason instanceof SwitchboardError)
          throw controller.signal.reason;
        if (err instanceof SwitchboardError) throw err;
        throw fail('network', 'the transcription service could not be reached', {}, scrub(err));
      } finally {
        clock.clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      }
    },
  };
}

function timedOut(ms: number): SwitchboardError {
  return fail('timeout', `the transcription service did not answer within ${Math.round(ms / 1000)} s`);
}

/** The one line for an error status, with the service's own message when it gave one. */
function statusError(status: number, body: string): SwitchboardError {
  const said = serviceMessage(body);
  const suffix = said ? `: ${said}` : '';
  if (status === 401 || status === 403)
    return fail('auth', `the transcription service refused the bot's key (HTTP ${status})${suffix}`, {
      status,
    });
  if (status >= 500 || status === 429)
    return fail('server', `the transcription service failed (HTTP ${status})${suffix}`, { status });
  return fail('rejected', `the transcription service refused the recording (HTTP ${status})${suffix}`, {
    status,
  });
}

/** `error.message` of an OpenAI-style error body, one line and bounded; '' when there is none. */
function serviceMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; detail?: unknown };
    const message =
      typeof parsed.error === 'string'
        ? parsed.error
        : typeof parsed.error?.message === 'string'
          ? parsed.error.message
          : typeof parsed.detail === 'string'
            ? parsed.detail
            : '';
    const line = message.replace(/\s+/g, ' ').trim();
    return line.length > 200 ? `${line.slice(0, 200)}…` : line;
  } catch {
    return '';
  }
}

/** The Transcription object: `text` is required; `usage.seconds` when billed by duration. */
function parse(body: string): Transcript {
  let parsed: { text?: unknown; usage?: { type?: unknown; seconds?: unknown } };
  try {
    parsed = JSON.parse(body) as typeof parsed;
  } catch (err) {
    throw fail('malformed', 'the transcription service answered with something that is not JSON', {}, err);
  }
  if (typeof parsed?.text !== 'string')
    throw fail('malformed', 'the transcription service answered without a transcript');
  const seconds = parsed.usage?.type === 'duration' ? parsed.usage.seconds : undefined;
  return {
    text: parsed.text.trim(),
    ...(typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? { seconds } : {}),
  };
}

/** A network error without any URL in it (a URL could carry credentials). */
function scrub(err: unknown): Error {
  const message = err instanceof Error ? err.message : String(err);
  return new Error(message.replace(/\bhttps?:\/\/\S+/g, '[url]'));
}
