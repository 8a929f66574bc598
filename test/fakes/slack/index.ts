/**
 * A loopback fake Slack for the real Bolt app: the Web API, response URLs,
 * Socket Mode and an HTTP-mode sender, plus helpers that act like people
 * (post a message, mention the bot, edit, run `/switchboard ...`, press a
 * button) and deliver what Slack would deliver for it.
 *
 * @example
 * const slack = await startFakeSlack();
 * // new App({ clientOptions: { slackApiUrl: slack.apiUrl }, appToken: slack.appToken, ... })
 * await slack.socket.waitForConnection();
 * const { ts } = await slack.userMessage({ channel: 'C1', user: 'U1', text: `<@${slack.botUserId}> hi` });
 */
import { randomUUID } from 'node:crypto';
import { buttonsOf } from './blocks.js';
import type { Args } from './methods.js';
import { blockActions, eventCallback, messageChanged, slashCommandBody, type Workspace } from './payloads.js';
import { FakeSlackHttp, type FaultRule, type RecordedCall } from './server.js';
import type { SignedResponse, SignOptions, SlackRequestSender } from './signing.js';
import { type Ack, type EnvelopeOptions, FakeSocketMode } from './socket.js';
import {
  DEFAULT_LIMITS,
  type FakeMessage,
  type FakeSlackLimits,
  FakeSlackState,
  visibleText,
} from './state.js';

export { buttonsOf, renderBlocks, validateBlocks } from './blocks.js';
export type { FaultRule, RecordedCall } from './server.js';
export { SlackRequestSender, slackSignature } from './signing.js';
export type { Ack } from './socket.js';
export { DEFAULT_LIMITS, type FakeMessage, type FakeSlackLimits, visibleText } from './state.js';

/** Options of {@link startFakeSlack}. */
export interface FakeSlackOptions {
  botToken?: string;
  appToken?: string;
  botUserId?: string;
  botId?: string;
  teamId?: string;
  limits?: Partial<FakeSlackLimits>;
  /** How chat.*Stream methods answer: served (`on`, default), `unknown_method`, or HTTP 404. */
  streaming?: 'on' | 'unknown_method' | 'http404';
}

/** What a delivery got back: the Socket Mode ack or the HTTP answer. */
export interface Delivery {
  ack?: Ack;
  http?: SignedResponse;
}

type Kind = 'events_api' | 'slash_commands' | 'interactive';
type DeliverOptions = { retryAttempt?: number } & Pick<SignOptions, 'signature' | 'timestampSec'>;

/** The running fake. */
export class FakeSlack {
  readonly state = new FakeSlackState();
  readonly socket = new FakeSocketMode();
  readonly limits: FakeSlackLimits;
  readonly botToken: string;
  readonly appToken: string;
  readonly botUserId: string;
  readonly botId: string;
  readonly teamId: string;
  streaming: 'on' | 'unknown_method' | 'http404';
  readonly http: FakeSlackHttp;
  /** When set, deliveries go to a bot in HTTP mode instead of the socket. */
  httpTarget: SlackRequestSender | undefined;
  #eventSeq = 0;

  constructor(options: FakeSlackOptions = {}) {
    this.botToken = options.botToken ?? 'xoxb-fake-bot-token';
    this.appToken = options.appToken ?? 'xapp-fake-app-token';
    this.botUserId = options.botUserId ?? 'UBOT';
    this.botId = options.botId ?? 'BBOT';
    this.teamId = options.teamId ?? 'T0FAKE';
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.streaming = options.streaming ?? 'on';
    const self = this;
    this.http = new FakeSlackHttp({
      botToken: this.botToken,
      appToken: this.appToken,
      onUpgrade: this.socket.onUpgrade,
      context: {
        state: this.state,
        limits: this.limits,
        botUserId: this.botUserId,
        botId: this.botId,
        teamId: this.teamId,
        get streaming() {
          return self.streaming;
        },
        socketUrl: () => `${this.url.replace('http', 'ws')}/socket?ticket=${randomUUID()}`,
        now: () => Date.now(),
      },
    });
  }

  get url(): string {
    return this.http.url;
  }
  /** For `clientOptions.slackApiUrl` / `SLACK_API_URL`. */
  get apiUrl(): string {
    return `${this.http.url}/api/`;
  }
  get calls(): RecordedCall[] {
    return this.http.calls;
  }
  get faults(): FaultRule[] {
    return this.http.faults;
  }
  /** Calls answered with a 429. */
  get rateLimited(): RecordedCall[] {
    return this.http.rateLimited;
  }
  /** Calls of one method, in order. */
  callsOf(method: string): RecordedCall[] {
    return this.http.callsOf(method);
  }

  async close(): Promise<void> {
    await this.socket.close();
    await this.http.close();
  }

  /** Resolves when `predicate` holds, checked after every call the fake answers. */
  until(predicate: () => boolean, timeoutMs = 8000, what = 'condition'): Promise<void> {
    if (predicate()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!predicate()) return;
        done();
        resolve();
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`fake Slack: ${what} not met within ${timeoutMs} ms`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.http.listeners.delete(check);
      };
      this.http.listeners.add(check);
    });
  }

  /** The bot's messages, oldest first, optionally in one thread. */
  botMessages(channel?: string, threadTs?: string): FakeMessage[] {
    return this.state.botMessages(this.botUserId, channel, threadTs);
  }

  /** What a person sees in a thread from the bot, one string per message. */
  botTexts(channel: string, threadTs: string): string[] {
    return this.botMessages(channel, threadTs).map(visibleText);
  }

  /**
   * Stores a file and returns its Slack file object (for `userMessage({ files })`).
   * `extra`: more fields of the file object, such as an audio clip's
   * `subtype: 'slack_audio'` and `duration_ms` (files.info's File type).
   */
  addFile(name: string, mimetype: string, data: Buffer, extra?: Args): Args {
    const id = `F${String(this.state.files.size + 1).padStart(6, '0')}`;
    this.state.files.set(id, { name, mimetype, data, ...(extra ? { extra } : {}) });
    return {
      ...extra,
      id,
      name,
      mimetype,
      size: data.length,
      url_private: `${this.url}/files/${id}`,
      url_private_download: `${this.url}/files/${id}`,
    };
  }

  /** Wraps an event the way the Events API does. */
  eventBody(event: Args, eventId = `Ev${String(++this.#eventSeq).padStart(8, '0')}`): Args {
    return eventCallback(this.#workspace(), event, eventId);
  }

  #workspace(): Workspace {
    return {
      teamId: this.teamId,
      botUserId: this.botUserId,
      url: this.url,
      userName: (id) => this.state.userName(id),
    };
  }

  /** Delivers a payload over Socket Mode, or signed over HTTP when {@link httpTarget} is set. */
  async deliver(kind: Kind, body: Args, options: DeliverOptions = {}): Promise<Delivery> {
    if (this.httpTarget) {
      const sign: SignOptions = {
        ...(options.retryAttempt ? { retryNum: options.retryAttempt } : {}),
        ...(options.signature ? { signature: options.signature } : {}),
        ...(options.timestampSec !== undefined ? { timestampSec: options.timestampSec } : {}),
      };
      if (kind === 'events_api') return { http: await this.httpTarget.event(body, sign) };
      if (kind === 'slash_commands')
        return { http: await this.httpTarget.command(body as Record<string, string>, sign) };
      return { http: await this.httpTarget.interactive(body, sign) };
    }
    const envelope: EnvelopeOptions = options.retryAttempt ? { retryAttempt: options.retryAttempt } : {};
    return { ack: await this.socket.send(kind, body, envelope) };
  }

  /**
   * A person posts a message: it is stored, and Slack's events for it are
   * delivered (a `message` event, plus `app_mention` when it mentions the bot
   * outside a DM), each with its own event_id.
   */
  async userMessage(input: {
    channel: string;
    user: string;
    text: string;
    threadTs?: string;
    channelType?: 'channel' | 'group' | 'im' | 'mpim';
    /** Deliver only the app_mention event (as when the app lacks the message scopes). */
    only?: 'message' | 'app_mention';
    /** Shared files (from {@link addFile}); the message gets subtype file_share. */
    files?: Args[];
  }): Promise<{ ts: string; bodies: Args[]; deliveries: Delivery[] }> {
    const ts = this.state.nextTs();
    this.state.add({
      channel: input.channel,
      ts,
      ...(input.threadTs ? { threadTs: input.threadTs } : {}),
      user: input.user,
      text: input.text,
    });
    const channelType = input.channelType ?? (input.channel.startsWith('D') ? 'im' : 'channel');
    const base = {
      ...(input.files ? { subtype: 'file_share', files: input.files } : {}),
      channel: input.channel,
      user: input.user,
      text: input.text,
      ts,
      ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
    };
    const bodies: Args[] = [];
    if (input.only !== 'app_mention')
      bodies.push(this.eventBody({ type: 'message', channel_type: channelType, ...base }));
    if (input.only !== 'message' && channelType !== 'im' && input.text.includes(`<@${this.botUserId}>`))
      bodies.push(this.eventBody({ type: 'app_mention', ...base }));
    const deliveries: Delivery[] = [];
    for (const body of bodies) deliveries.push(await this.deliver('events_api', body));
    return { ts, bodies, deliveries };
  }

  /** A person edits their message: `message_changed`. */
  async editMessage(channel: string, ts: string, text: string): Promise<Delivery> {
    const msg = this.state.get(channel, ts);
    if (!msg) throw new Error(`no message ${channel}/${ts}`);
    const event = messageChanged(msg, text, this.state.nextTs());
    msg.text = text;
    msg.history.push(text);
    return this.deliver('events_api', this.eventBody(event));
  }

  /** A person runs a slash command; the body carries a response_url on this fake. */
  async slashCommand(input: {
    channel: string;
    user: string;
    text: string;
    command?: string;
    threadTs?: string;
  }): Promise<Delivery & { responseId: string }> {
    const responseId = randomUUID();
    const body = slashCommandBody(this.#workspace(), input, responseId);
    return { ...(await this.deliver('slash_commands', body)), responseId };
  }

  /** A person presses the button carrying `value` on one of the bot's messages. */
  async pressButton(input: {
    user: string;
    channel: string;
    messageTs: string;
    value: string;
  }): Promise<Delivery> {
    const msg = this.state.get(input.channel, input.messageTs);
    if (!msg) throw new Error(`no message ${input.channel}/${input.messageTs}`);
    const button = buttonsOf(msg.blocks).find((b) => b.value === input.value);
    if (!button) throw new Error(`message ${input.messageTs} has no button with value ${input.value}`);
    return this.deliver('interactive', blockActions(this.#workspace(), msg, button, input.user));
  }
}

/** Starts a fake Slack on 127.0.0.1 (random port). Close it in afterEach/afterAll. */
export async function startFakeSlack(options: FakeSlackOptions = {}): Promise<FakeSlack> {
  const fake = new FakeSlack(options);
  await fake.http.listen();
  return fake;
}
