/**
 * Sending, editing and deleting messages and showing typing, through the
 * Teams SDK's Bot Connector client (`@microsoft/teams.api`), one client per
 * regional endpoint. A conversation's endpoint is the one its last activity
 * named (`service-urls.ts`); a chat the bot has never heard from has none,
 * and is NOT_FOUND. Every failure is mapped by `errors.ts`; nothing here
 * waits or retries (the core's scheduler does).
 */
import { Client } from '@microsoft/teams.api';
import type { OutboundMessage, SentMessage } from '../../src/bot/adapter-contract.js';
import { SwitchboardError } from '../../src/errors.js';
import { messageContent } from './buttons.js';
import { conversationOf } from './chat-key.js';
import { toSwitchboardError } from './errors.js';
import type { SdkLogger } from './sdk-logger.js';
import type { ServiceUrls } from './service-urls.js';

/** What the outbound calls need. */
export interface OutboundContext {
  urls: ServiceUrls;
  /** The bot's bearer token. */
  token: () => Promise<string>;
  /** Give up on one call after this long. */
  timeoutMs: number;
  /** The SDK client's logger. */
  logger: SdkLogger;
}

/** An activity the SDK's client posts. */
export type SendableActivity = Parameters<Client['conversations']['createActivity']>[1];

/** One Bot Connector call's target: the client for the conversation's endpoint and its id. */
export interface Target {
  client: Client;
  conversationId: string;
}

/** Bot Connector calls for the adapter. */
export class TeamsOutbound {
  readonly #clients = new Map<string, Client>();

  constructor(private readonly ctx: OutboundContext) {}

  /** The client and conversation of a chat key. */
  target(chat: string): Target {
    const conversationId = conversationOf(chat);
    const serviceUrl = this.ctx.urls.get(conversationId);
    if (!serviceUrl)
      throw new SwitchboardError(
        'NOT_FOUND',
        'The bot has no Bot Connector endpoint for this Teams conversation: someone there must write to it first.',
        { detail: { chat } },
      );
    let client = this.#clients.get(serviceUrl);
    if (!client) {
      client = new Client(serviceUrl, {
        token: () => this.ctx.token(),
        timeout: this.ctx.timeoutMs,
        logger: this.ctx.logger,
      });
      this.#clients.set(serviceUrl, client);
    }
    return { client, conversationId };
  }

  /** Runs one call, mapping its failure. */
  async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw toSwitchboardError(err, what);
    }
  }

  async send(chat: string, message: OutboundMessage): Promise<SentMessage> {
    return this.sendActivity(chat, messageContent(message));
  }

  /** Posts any message activity the adapter built (its own cards too: file consent, file info). */
  async sendActivity(chat: string, activity: SendableActivity): Promise<SentMessage> {
    const { client, conversationId } = this.target(chat);
    const res = await this.call('send', () =>
      client.conversations.activities(conversationId).create(activity),
    );
    return { messageId: res.id };
  }

  async edit(chat: string, messageId: string, message: OutboundMessage): Promise<void> {
    const { client, conversationId } = this.target(chat);
    const activity = { ...messageContent(message), id: messageId };
    await this.call('edit', () =>
      client.conversations.activities(conversationId).update(messageId, activity),
    );
  }

  async delete(chat: string, messageId: string): Promise<void> {
    const { client, conversationId } = this.target(chat);
    await this.call('delete', () => client.conversations.activities(conversationId).delete(messageId));
  }

  async typing(chat: string): Promise<void> {
    const { client, conversationId } = this.target(chat);
    await this.call('typing', () =>
      client.conversations.activities(conversationId).create({ type: 'typing' }),
    );
  }
}
