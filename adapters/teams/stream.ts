/**
 * Native streaming in personal chats, as "Stream bot messages" documents it
 * for the REST API (https://learn.microsoft.com/en-us/microsoftteams/platform/bots/streaming-ux):
 *
 * 1. start: a `typing` activity with an `informative` streaminfo entity and
 *    `streamSequence` 1; the answer's id is the stream id;
 * 2. updates: `typing` activities carrying the whole text so far, the
 *    stream id, `streamType: streaming` and the next sequence number;
 * 3. final: a `message` with the stream id and `streamType: final` (and no
 *    sequence); it becomes the real message, whose id is the stream id.
 *
 * The SDK's own `HttpStream` paces and retries by itself on timers, which
 * the core's one scheduler must do, so the three calls are made here with
 * the SDK's client, one at a time, when the core asks.
 *
 * Teams refuses stream requests less than a second apart (403 "Content
 * stream is not allowed"). The core paces every request of a stream by the
 * chat's `minEditIntervalMs` (capabilities.ts sets it above that second),
 * its start included since the capabilities say `nativeStreamStartCounts`,
 * so nothing here keeps time.
 *
 * Teams shows its own Stop button on a stream; once pressed, the next
 * request is refused as "cancelled by user". That is the person stopping
 * the reply, so `onCancelled` tells the adapter, which hands the core a
 * stop event for the chat (as Telegram's draft stop does).
 */
import type { StreamInfoEntity } from '@microsoft/teams.api';
import type { OutboundMessage, SentMessage, StreamHandle } from '../../src/bot/adapter-contract.js';
import { SwitchboardError } from '../../src/errors.js';
import { messageContent } from './buttons.js';
import type { TeamsOutbound } from './outbound.js';

/** The informative line shown while the reply has no text yet (Teams: at most 1,000 characters). */
export const INFORMATIVE_TEXT = 'Working on it…';

/** The streaminfo entity of each step. */
export function streamInfo(
  streamType: 'informative' | 'streaming' | 'final',
  streamId: string | undefined,
  sequence: number | undefined,
): StreamInfoEntity {
  return {
    type: 'streaminfo',
    streamType,
    ...(streamId ? { streamId } : {}),
    ...(sequence === undefined ? {} : { streamSequence: sequence }),
  };
}

/** What one stream request sends. */
type StreamActivity = Parameters<
  ReturnType<TeamsOutbound['target']>['client']['conversations']['createActivity']
>[1];

interface OpenStream {
  chat: string;
  streamId: string;
  sequence: number;
}

/** The adapter's NativeStreaming, over {@link TeamsOutbound}. */
export class TeamsStreams {
  readonly #open = new Map<string, OpenStream>();

  constructor(
    private readonly outbound: TeamsOutbound,
    private readonly onCancelled: (chat: string) => void = () => undefined,
  ) {}

  /** Runs one request of an open stream; a stream the person stopped is forgotten and reported. */
  async #request(open: OpenStream, what: string, body: StreamActivity): Promise<void> {
    const { client, conversationId } = this.outbound.target(open.chat);
    try {
      await this.outbound.call(what, () => client.conversations.activities(conversationId).create(body));
    } catch (err) {
      if (err instanceof SwitchboardError && err.detail.streamCancelled === true) {
        this.#open.delete(open.streamId);
        this.onCancelled(open.chat);
      }
      throw err;
    }
  }

  /** The open stream of `handle`; NOT_FOUND once it ended. */
  #opened(handle: StreamHandle): OpenStream {
    const open = this.#open.get(handle.id);
    if (!open) throw new SwitchboardError('NOT_FOUND', 'This Teams stream has already ended.');
    return open;
  }

  async startStream(chat: string): Promise<StreamHandle> {
    const { client, conversationId } = this.outbound.target(chat);
    const res = await this.outbound.call('start a stream', () =>
      client.conversations.activities(conversationId).create({
        type: 'typing',
        text: INFORMATIVE_TEXT,
        entities: [streamInfo('informative', undefined, 1)],
      }),
    );
    if (!res?.id)
      throw new SwitchboardError('STREAM_UNAVAILABLE', 'Teams gave no stream id; replying with edits.');
    this.#open.set(res.id, { chat, streamId: res.id, sequence: 1 });
    return { chat, id: res.id };
  }

  async updateStream(handle: StreamHandle, message: OutboundMessage): Promise<void> {
    if (!message.text) return;
    const open = this.#opened(handle);
    const sequence = open.sequence + 1;
    await this.#request(open, 'update a stream', {
      type: 'typing',
      text: message.text,
      entities: [streamInfo('streaming', open.streamId, sequence)],
    });
    open.sequence = sequence;
  }

  async finishStream(handle: StreamHandle, message: OutboundMessage): Promise<SentMessage> {
    const open = this.#opened(handle);
    await this.#request(open, 'finish a stream', {
      ...messageContent(message),
      entities: [streamInfo('final', open.streamId, undefined)],
    });
    this.#open.delete(handle.id);
    return { messageId: open.streamId };
  }
}
