/**
 * A loopback fake of Microsoft Teams for a bot: the Bot Connector (its
 * serviceUrl), the Bot Framework's OpenID metadata and keys, the Entra
 * token endpoint, OneDrive uploads and file downloads; plus helpers that
 * act like people (write, mention, press a card button, accept a file) and
 * post what Teams would post to the bot's messaging endpoint, with a valid
 * JWT or a broken one. See README.md beside this file.
 *
 * @example
 * const teams = await startFakeTeams({ botEndpoint: 'http://127.0.0.1:3978/api/messages' });
 * const chat = teams.personalChat('Ada');
 * await teams.userMessage(chat, 'hello');
 * await teams.waitForSent((a) => a.activity.type === 'message');
 */

import { FakeTeamsCore, type FakeTeamsOptions } from './core.js';
import { type BotAnswer, type InboundAuth, inboundToken, postToBot } from './deliver.js';
import type { UploadSession } from './files.js';
import { FakeIdentity } from './identity.js';
import { cardActionAnswerProblem } from './invoke.js';
import {
  type Activity,
  cardActionInvoke,
  cardSubmitMessage,
  type Envelope,
  fileConsentInvoke,
  type MessageOptions,
  membersAdded,
  messageActivity,
} from './payloads.js';
import type { ChannelAccount, FakeConversation } from './state.js';

export { FakeTeamsCore, type FakeTeamsOptions } from './core.js';
export { type BotAnswer, BROKEN_TOKENS, type InboundAuth } from './deliver.js';
export { cardActionAnswerProblem } from './invoke.js';
export { CONNECTOR_AUDIENCE, CONNECTOR_ISSUER } from './keys.js';
export { DEFAULT_LIMITS, type FakeTeamsLimits, messageBytes } from './limits.js';
export type { Activity } from './payloads.js';
export type { FaultRule, Operation, RecordedCall } from './routes.js';
export type { ChannelAccount, FakeConversation, StoredActivity } from './state.js';
export type { FakeStream } from './streaming.js';

/** Options of one inbound post. */
export interface PostOptions {
  /** The token to put on it (default a valid one). */
  auth?: InboundAuth;
  /** For invokes: post it again this many times while the bot has not answered within the deadline (Teams does twice; default 0). */
  retriesWhenLate?: number;
}

/** The running fake: {@link FakeTeamsCore} plus people who write, press buttons and answer file cards. */
export class FakeTeams extends FakeTeamsCore {
  /** A person writes in a conversation (in a channel: a new thread, or `threadRootId`'s). */
  async userMessage(
    conversation: FakeConversation,
    text: string,
    options: Omit<MessageOptions, 'text'> &
      PostOptions & { from?: ChannelAccount; threadRootId?: string } = {},
  ): Promise<{ answer: BotAnswer; activity: Activity }> {
    const env = this.#envelope(conversation, options.from, options.threadRootId);
    const activity = messageActivity(env, { ...options, text });
    this.peopleMessages.add(env.id);
    return { answer: await this.post(activity, options), activity };
  }
  /**
   * A person presses an Action.Execute button (`adaptiveCard/action` invoke)
   * on the bot's message `messageId`. `problem` says why Teams would not
   * take the bot's answer (late, not HTTP 200, not an invoke response).
   */
  async cardAction(
    conversation: FakeConversation,
    messageId: string,
    verb: string,
    data: Activity = {},
    options: PostOptions & { from?: ChannelAccount } = {},
  ) {
    const activity = cardActionInvoke(
      this.#envelope(conversation, options.from, this.#rootOf(conversation, messageId)),
      messageId,
      verb,
      data,
    );
    const answer = await this.post(activity, options);
    return { answer, activity, problem: cardActionAnswerProblem(answer, this.limits.invokeDeadlineMs) };
  }
  /** A person presses an Action.Submit button: a message with the data as `value`. */
  async cardSubmit(
    conversation: FakeConversation,
    messageId: string,
    data: Activity,
    options: PostOptions & { from?: ChannelAccount } = {},
  ) {
    const activity = cardSubmitMessage(
      this.#envelope(conversation, options.from, this.#rootOf(conversation, messageId)),
      messageId,
      data,
    );
    return { answer: await this.post(activity, options), activity };
  }
  /** The bot is added to a conversation (installation in a personal chat, team or group chat). */
  async botAdded(conversation: FakeConversation, options: PostOptions & { from?: ChannelAccount } = {}) {
    const activity = membersAdded(this.#envelope(conversation, options.from), [this.botAccount]);
    return { answer: await this.post(activity, options), activity };
  }
  /**
   * A person answers the bot's file consent card `messageId`: on accept the
   * fake opens an upload session (`upload.bytes` fills when the bot PUTs).
   */
  async fileConsent(
    conversation: FakeConversation,
    messageId: string,
    action: 'accept' | 'decline',
    options: PostOptions = {},
  ) {
    const card = this.state.find(conversation.id, messageId);
    const attachment = (card?.activity.attachments as Activity[] | undefined)?.[0];
    const name = typeof attachment?.name === 'string' ? attachment.name : 'file';
    const context = (attachment?.content as Activity | undefined)?.acceptContext;
    let upload: UploadSession | undefined;
    if (action === 'accept') upload = this.files.openUpload(name);
    const info =
      upload === undefined
        ? undefined
        : {
            name,
            uploadUrl: `${this.server.base}/files/upload/${upload.fileId}`,
            contentUrl: `${this.server.base}/files/download/${upload.fileId}`,
            uniqueId: upload.uniqueId,
            fileId: upload.fileId,
          };
    const activity = fileConsentInvoke(this.#envelope(conversation), messageId, action, context, info);
    return { answer: await this.post(activity, options), activity, upload };
  }

  /** Posts any activity to the bot's endpoint with a valid token, or the broken one `auth` names. */
  async post(activity: Activity, options: PostOptions = {}): Promise<BotAnswer> {
    if (this.botEndpoint === undefined)
      throw new Error('No bot endpoint: pass botEndpoint to startFakeTeams or call setBotEndpoint(url)');
    const serviceUrl = typeof activity.serviceUrl === 'string' ? activity.serviceUrl : this.serviceUrl;
    const token = await inboundToken(this.identity, options.auth ?? 'valid', {
      appId: this.appId,
      serviceUrl,
      nowSec: Math.floor(Date.now() / 1000),
      lifetimeSec: this.limits.tokenLifetimeSec,
    });
    const retries = activity.type === 'invoke' ? (options.retriesWhenLate ?? 0) : 0;
    return postToBot(this.botEndpoint, activity, token, {
      deadlineMs: this.limits.invokeDeadlineMs,
      retriesWhenLate: retries,
    });
  }

  /** Signs a connector token as `auth` says, for bots' JWT checks tested without HTTP. */
  inboundToken(auth: InboundAuth = 'valid', serviceUrl = this.serviceUrl): Promise<string | undefined> {
    return inboundToken(this.identity, auth, {
      appId: this.appId,
      serviceUrl,
      nowSec: Math.floor(Date.now() / 1000),
      lifetimeSec: this.limits.tokenLifetimeSec,
    });
  }

  #envelope(conversation: FakeConversation, from?: ChannelAccount, threadRootId?: string): Envelope {
    const env: Envelope = {
      id: this.state.nextId(),
      serviceUrl: this.serviceUrl,
      conversation,
      from: from ?? (conversation.members[0] as ChannelAccount),
      bot: { appId: this.appId, name: this.botName },
      timestamp: new Date().toISOString(),
    };
    if (threadRootId !== undefined) env.threadRootId = threadRootId;
    return env;
  }

  #rootOf(conversation: FakeConversation, messageId: string): string | undefined {
    if (conversation.type !== 'channel') return undefined;
    return this.state.find(conversation.id, messageId)?.conversationId.split(';messageid=')[1] ?? messageId;
  }
}

/** Starts a fake Teams on a random loopback port. */
export async function startFakeTeams(options: FakeTeamsOptions = {}): Promise<FakeTeams> {
  const teams = new FakeTeams(await FakeIdentity.create(), options);
  await teams.listen();
  return teams;
}
