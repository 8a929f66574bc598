/**
 * Teams' streaming of bot messages, as "Stream bot messages" documents it
 * (https://learn.microsoft.com/en-us/microsoftteams/platform/bots/streaming-ux):
 * - only in one-on-one (personal) chats, and one stream per chat at a time;
 * - the bot POSTs `typing` activities carrying a `streaminfo` entity
 *   (`streamType` informative or streaming, `streamSequence` from 1 upward);
 *   the first answer's id is the `streamId` every later update names;
 * - each streaming update repeats everything streamed so far;
 * - a `message` with `streamType: final` ends the stream and becomes the
 *   message (its id is the stream id);
 * - informative text is at most 1000 characters;
 * - errors from the page's table: 403 ContentStreamNotAllowed ("Content
 *   stream is not allowed", "... finished due to exceeded streaming time.",
 *   "... was cancelled by user"), 400 BadRequest ("Content stream is not
 *   allowed on an already completed streamed message", "Request streamed
 *   content should contain the previously streamed content").
 * The older `channelData` form (streamId/streamType/streamSequence there)
 * is read too.
 */
import type { FakeTeamsLimits } from './limits.js';

/** The streaming fields of one activity. */
export interface StreamInfo {
  streamType: 'informative' | 'streaming' | 'final';
  streamId?: string;
  streamSequence?: number;
}

/** One stream as the fake tracks it. */
export interface FakeStream {
  id: string;
  conversationId: string;
  startedAt: number;
  lastAt: number;
  lastSequence: number;
  /** What the streaming updates have shown so far. */
  text: string;
  /** Every update accepted, in order (informative and streaming ones). */
  updates: { streamType: string; text: string; sequence: number }[];
  state: 'open' | 'final' | 'cancelled' | 'timed-out';
}

/** A refusal, in the connector's error shape. */
export interface StreamRefusal {
  status: number;
  code: string;
  message: string;
}

/** Reads the `streaminfo` entity (or the channelData form); undefined for an ordinary activity. */
export function streamInfoOf(activity: Record<string, unknown>): StreamInfo | undefined {
  const entities = Array.isArray(activity.entities) ? (activity.entities as Record<string, unknown>[]) : [];
  const entity = entities.find((e) => e?.type === 'streaminfo');
  const source = entity ?? (activity.channelData as Record<string, unknown> | undefined);
  const type = source?.streamType;
  if (type !== 'informative' && type !== 'streaming' && type !== 'final') return undefined;
  const info: StreamInfo = { streamType: type };
  if (typeof source?.streamId === 'string') info.streamId = source.streamId;
  if (typeof source?.streamSequence === 'number') info.streamSequence = source.streamSequence;
  return info;
}

const notAllowed = (message: string): StreamRefusal => ({
  status: 403,
  code: 'ContentStreamNotAllowed',
  message,
});
const badRequest = (message: string): StreamRefusal => ({ status: 400, code: 'BadRequest', message });

/** The streams of one fake. */
export class StreamBook {
  readonly streams = new Map<string, FakeStream>();
  readonly #limits: FakeTeamsLimits;

  constructor(limits: FakeTeamsLimits) {
    this.#limits = limits;
  }

  /**
   * Checks one streaming activity and applies it. `newId` names a stream
   * that starts here. Answers the stream id, or the refusal.
   */
  apply(
    conversationId: string,
    personal: boolean,
    activity: Record<string, unknown>,
    info: StreamInfo,
    now: number,
    newId: string,
  ): { id: string; stream: FakeStream } | StreamRefusal {
    if (!personal) return notAllowed('Content stream is not allowed');
    const text = typeof activity.text === 'string' ? activity.text : '';
    if (info.streamType === 'informative' && text.length > this.#limits.maxInformativeChars) {
      return badRequest(`Informative message is longer than ${this.#limits.maxInformativeChars} characters`);
    }
    if (info.streamId === undefined) {
      if (info.streamType === 'final')
        return badRequest('A final stream message needs the streamId of its stream');
      if (activity.type !== 'typing') return badRequest('A stream starts with a typing activity');
      const open = [...this.streams.values()].find(
        (s) => s.conversationId === conversationId && s.state === 'open',
      );
      if (open !== undefined && now - open.startedAt < this.#limits.streamMaxDurationMs) {
        return notAllowed('Content stream is not allowed');
      }
      if (open !== undefined) open.state = 'timed-out';
      if (info.streamSequence !== 1) return badRequest('The first stream update must have streamSequence 1');
      const stream: FakeStream = {
        id: newId,
        conversationId,
        startedAt: now,
        lastAt: now,
        lastSequence: 1,
        text: info.streamType === 'streaming' ? text : '',
        updates: [{ streamType: info.streamType, text, sequence: 1 }],
        state: 'open',
      };
      this.streams.set(newId, stream);
      return { id: newId, stream };
    }
    const stream = this.streams.get(info.streamId);
    if (stream === undefined || stream.conversationId !== conversationId)
      return badRequest(`Unknown streamId ${info.streamId}`);
    if (stream.state === 'final')
      return badRequest('Content stream is not allowed on an already completed streamed message');
    if (stream.state === 'cancelled') return notAllowed('Content stream was cancelled by user');
    if (stream.state === 'timed-out' || now - stream.startedAt > this.#limits.streamMaxDurationMs) {
      stream.state = 'timed-out';
      return notAllowed('Content stream finished due to exceeded streaming time.');
    }
    if (now - stream.lastAt < this.#limits.streamMinIntervalMs)
      return notAllowed('Content stream is not allowed');
    if (info.streamType === 'final') {
      if (activity.type !== 'message') return badRequest('The final stream update is a message activity');
      stream.state = 'final';
      stream.lastAt = now;
      return { id: stream.id, stream };
    }
    if (activity.type !== 'typing') return badRequest('Stream updates are typing activities');
    if (info.streamSequence === undefined || info.streamSequence <= stream.lastSequence) {
      return badRequest(
        `streamSequence must grow: got ${info.streamSequence}, last was ${stream.lastSequence}`,
      );
    }
    if (info.streamType === 'streaming') {
      if (!text.startsWith(stream.text))
        return badRequest('Request streamed content should contain the previously streamed content');
      stream.text = text;
    }
    stream.lastSequence = info.streamSequence;
    stream.lastAt = now;
    stream.updates.push({ streamType: info.streamType, text, sequence: info.streamSequence });
    return { id: stream.id, stream };
  }

  /** The user pressed Stop: later updates are refused. */
  cancel(streamId: string): void {
    const stream = this.streams.get(streamId);
    if (stream?.state === 'open') stream.state = 'cancelled';
  }
}
