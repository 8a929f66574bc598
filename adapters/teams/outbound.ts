/**
 * Sending, editing and deleting messages and showing typing, through the
 * Teams SDK's Bot Connector client (`@microsoft/teams.api`), one client per
 * regional endpoint. A conversation's endpoint is the one its last activity
 * named (`service-urls.ts`); a chat the bot has never heard from has none,
 * and is NOT_FOUND. Every failure is mapped by `errors.ts`; nothing here
 * waits or retries (the core's scheduler does).
 *
 * An Update Activity replaces the whole message, card included, while the
 * core expects an edit that names no buttons to keep them: the buttons of
 * recent messages are remembered (bounded; after a restart such an edit
 * shows the text alone).
 */
import { Client } from '@microsoft/teams.api';
import type { Button, OutboundMessage, SentMessage } from '../../src/bot/adapter-contract.js';
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

/** How many messages' buttons are remembered for their edits. */
const REMEMBERED_BUTTONS = 2000;

/** One Bot Connector call's target: the client for the conversation's endpoint and its id. */
export interface Target {
  client: Client;
  conversationId: string;
}

/** Bot Connector calls for the adapter. */
export class TeamsOutbound {
  readonly #clients = new Map<string, Client>();
  /** The buttons under recent messages, by conversation and message id, oldest first. */
  readonly #buttons = new Map<string, Button[][]>();

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
    const sent = await this.sendActivity(chat, messageContent(message));
    this.#remember(chat, sent.messageId, message.buttons);
    return sent;
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
    const buttons = message.buttons ?? this.#buttons.get(`${conversationId}/${messageId}`);
    const activity = { ...messageContent({ ...message, ...(buttons ? { buttons } : {}) }), id: messageId };
    await this.call('edit', () =>
      client.conversations.activities(conversationId).update(messageId, activity),
    );
    this.#remember(chat, messageId, buttons);
  }

  async delete(chat: string, messageId: string): Promise<void> {
    const { client, conversationId } = this.target(chat);
    await this.call('delete', () => client.conversations.activities(conversationId).delete(messageId));
    this.#remember(chat, messageId, undefined);
  }

  async typing(chat: string): Promise<void> {
    const { client, conversationId } = this.target(chat);
    await this.call('typing', () =>
      client.conversations.activities(conversationId).create({ type: 'typing' }),
    );
  }

  /** Keeps a message's buttons for its edits (forgets them when there are none), dropping the oldest past the bound. */
  #remember(chat: string, messageId: string, buttons: Button[][] | undefined): void {
    const key = `${conversationOf(chat)}/${messageId}`;
    this.#buttons.delete(key);
    if (!buttons?.some((row) => row.length > 0)) return;
    this.#buttons.set(key, buttons);
    const oldest = this.#buttons.keys().next().value;
    if (this.#buttons.size > REMEMBERED_BUTTONS && oldest !== undefined) this.#buttons.delete(oldest);
  }
}
