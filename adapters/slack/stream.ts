/**
 * Native streaming with chat.startStream / appendStream / stopStream. The
 * core hands over the whole text so far; a Slack stream only appends, so the
 * adapter sends the new suffix. Slack wants text to start a stream, so the
 * stream opens with the first update. When no stream can be opened (the
 * server has no chat streams, or a channel thread has no known recipient),
 * that first update answers STREAM_UNAVAILABLE: nothing is visible yet, so
 * the core sends the text as a message and edits it at chat.update's pace,
 * and later streams are refused at once when the server has none. If the
 * text stops growing as a suffix (an earlier part changed), or the stream
 * expired, the message is finished and kept current with chat.update. A Slack stream cannot carry buttons, so the
 * Stop button shows only on replies that are edited messages.
 */
import { randomUUID } from 'node:crypto';
import type { webApi } from '@slack/bolt';
import type {
  NativeStreaming,
  OutboundMessage,
  SentMessage,
  StreamHandle,
} from '../../src/bot/adapter-contract.js';
import { isErrorCode, SwitchboardError } from '../../src/errors.js';
import type { Logger } from '../../src/logger.js';
import { isDirectChannel, parseSlackChatKey } from './keys.js';
import { callSlack, type SlackOutbound } from './outbound.js';
import type { ThreadTracker } from './threads.js';

interface StreamState {
  chat: string;
  channel: string;
  threadTs: string;
  /** `pending`: nothing sent yet; `stream`: a Slack stream is open; `edit`: a normal message kept current. */
  mode: 'pending' | 'stream' | 'edit';
  ts?: string;
  /** Text the Slack stream holds. */
  sent: string;
}

/** Slack's native streams, with the fallbacks described above. */
export class SlackStreams implements NativeStreaming {
  /** Unknown until the first stream; false once the server showed it has none. */
  available: boolean | undefined;
  readonly #streams = new Map<string, StreamState>();

  constructor(
    private readonly client: webApi.WebClient,
    private readonly outbound: SlackOutbound,
    private readonly tracker: ThreadTracker,
    private readonly logger: Logger,
    enabled: boolean,
  ) {
    this.available = enabled ? undefined : false;
  }

  async startStream(chat: string, _options: { replyTo?: string }): Promise<StreamHandle> {
    if (this.available === false)
      throw new SwitchboardError(
        'STREAM_UNAVAILABLE',
        'This Slack server has no chat streams; the reply goes out as an edited message.',
      );
    const { channel, threadTs } = parseSlackChatKey(chat);
    const id = randomUUID();
    this.#streams.set(id, { chat, channel, threadTs, mode: 'pending', sent: '' });
    return { chat, id };
  }

  async updateStream(handle: StreamHandle, message: OutboundMessage): Promise<void> {
    const state = this.#state(handle);
    const text = message.text;
    if (state.mode === 'pending') {
      if (!text) return;
      try {
        await this.#open(state, message);
      } catch (err) {
        if (isErrorCode(err, 'STREAM_UNAVAILABLE')) this.#streams.delete(handle.id);
        throw err;
      }
      return;
    }
    if (state.mode === 'edit') {
      await this.outbound.edit(state.chat, state.ts as string, message);
      return;
    }
    if (!text.startsWith(state.sent)) {
      await this.#toEdits(state, message);
      return;
    }
    const delta = text.slice(state.sent.length);
    if (!delta) return;
    try {
      await callSlack(this.client, 'chat.appendStream', {
        channel: state.channel,
        ts: state.ts,
        markdown_text: delta,
      });
      state.sent = text;
    } catch (err) {
      // A stream Slack already closed (too old) continues as an edited message.
      if (!isErrorCode(err, 'NOT_FOUND')) throw err;
      state.mode = 'edit';
      this.outbound.remember(state.channel, state.ts as string, [], true);
      await this.outbound.edit(state.chat, state.ts as string, message);
    }
  }

  async finishStream(handle: StreamHandle, message: OutboundMessage): Promise<SentMessage> {
    const state = this.#state(handle);
    let sent: SentMessage;
    if (state.mode === 'pending') sent = await this.outbound.send(state.chat, message);
    else if (state.mode === 'edit') {
      await this.outbound.edit(state.chat, state.ts as string, message);
      sent = { messageId: state.ts as string };
    } else sent = await this.#stop(state, message);
    this.#streams.delete(handle.id);
    return sent;
  }

  async #stop(state: StreamState, message: OutboundMessage): Promise<SentMessage> {
    const ts = state.ts as string;
    const hasButtons = (message.buttons ?? []).some((row) => row.length > 0);
    const extends_ = message.text.startsWith(state.sent) && !hasButtons;
    const delta = extends_ ? message.text.slice(state.sent.length) : '';
    try {
      await callSlack(this.client, 'chat.stopStream', {
        channel: state.channel,
        ts,
        ...(delta ? { markdown_text: delta } : {}),
      });
      state.sent += delta;
    } catch (err) {
      if (!isErrorCode(err, 'NOT_FOUND')) throw err;
    }
    state.mode = 'edit';
    this.outbound.remember(state.channel, ts, [], true);
    if (state.sent !== message.text || hasButtons) await this.outbound.edit(state.chat, ts, message);
    return { messageId: ts };
  }

  async #open(state: StreamState, message: OutboundMessage): Promise<void> {
    const recipient = isDirectChannel(state.channel)
      ? undefined
      : this.tracker.recipient(state.channel, state.threadTs);
    if (this.available !== false && (recipient || isDirectChannel(state.channel))) {
      try {
        const res = await callSlack(this.client, 'chat.startStream', {
          channel: state.channel,
          thread_ts: state.threadTs,
          markdown_text: message.text,
          ...(recipient ? { recipient_user_id: recipient.userId, recipient_team_id: recipient.teamId } : {}),
        });
        this.available = true;
        state.mode = 'stream';
        state.ts = String(res.ts);
        state.sent = message.text;
        this.tracker.join(state.channel, state.threadTs);
        return;
      } catch (err) {
        if (!isErrorCode(err, 'NOT_FOUND')) throw err;
        this.available = false;
        this.logger.warn({ err }, 'Slack has no chat streams here; replies are edited messages instead');
      }
    }
    // Nothing is shown yet: the core's scheduler posts the text and paces its edits.
    throw new SwitchboardError(
      'STREAM_UNAVAILABLE',
      'No Slack stream can be opened here; the reply goes out as a message.',
    );
  }

  async #toEdits(state: StreamState, message: OutboundMessage): Promise<void> {
    const ts = state.ts as string;
    try {
      await callSlack(this.client, 'chat.stopStream', { channel: state.channel, ts });
    } catch (err) {
      if (!isErrorCode(err, 'NOT_FOUND')) throw err;
    }
    state.mode = 'edit';
    this.outbound.remember(state.channel, ts, [], true);
    await this.outbound.edit(state.chat, ts, message);
  }

  #state(handle: StreamHandle): StreamState {
    const state = this.#streams.get(handle.id);
    if (!state) throw new SwitchboardError('NOT_FOUND', `Unknown or finished Slack stream ${handle.id}.`);
    return state;
  }
}
