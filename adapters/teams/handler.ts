/**
 * What the adapter does with each activity the SDK hands it (already
 * authenticated): remember where its conversation is served, turn it into
 * the core's event (`inbound.ts`), refuse strangers through the core's
 * access gate before anything runs for them, fetch the files of a message,
 * and answer a button press's invoke in time (`presses.ts`).
 */
import type { AccessGate, ChatEvent, ChatUser, EventSink } from '../../src/bot/adapter-contract.js';
import { plain } from '../../src/bot/format/dialect.js';
import type { Clock } from '../../src/clock.js';
import type { Logger } from '../../src/logger.js';
import { conversationOf } from './chat-key.js';
import { downloadFiles, incomingFiles } from './files.js';
import { chatOf, type TeamsActivity, translate } from './inbound.js';
import type { TeamsOutbound } from './outbound.js';
import { cardActionResponse, pendingPress } from './presses.js';
import type { ServiceUrls } from './service-urls.js';
import { FILE_CONSENT_INVOKE, type TeamsUploads } from './upload.js';

/** Said when someone presses a card action that is not one of the bot's buttons. */
export const INACTIVE_CONTROL = 'This control is no longer active.';

/** What {@link TeamsInbound} needs. */
export interface InboundContext {
  sink: EventSink;
  gate?: AccessGate;
  urls: ServiceUrls;
  outbound: TeamsOutbound;
  uploads: TeamsUploads;
  logger: Logger;
  clock: Clock;
  token: () => Promise<string>;
  ackMs: number;
  maxFileBytes: number;
  downloadTimeoutMs: number;
}

/** An invoke's HTTP answer. */
export interface InvokeAnswer {
  status: number;
  body?: unknown;
}

/** Turns authenticated activities into the core's events. */
export class TeamsInbound {
  /** Who last wrote in each chat: the person behind Teams' Stop button in a personal chat. */
  readonly #lastUser = new Map<string, ChatUser>();

  constructor(private readonly ctx: InboundContext) {}

  /** The person pressed Stop on a streamed reply: the core stops the chat's turn, as for /stop. */
  async stopped(chat: string): Promise<void> {
    const user = this.#lastUser.get(chat);
    if (!user) return;
    await this.#deliver({ type: 'stop', chat, user });
  }

  /** Handles one activity; an invoke gets its answer back, anything else undefined. */
  async onActivity(raw: unknown): Promise<InvokeAnswer | undefined> {
    const activity = raw as TeamsActivity;
    const where = chatOf(activity);
    if (where && activity.serviceUrl) {
      await this.ctx.urls.remember(conversationOf(where.chat), activity.serviceUrl);
      if (activity.conversation?.id)
        await this.ctx.urls.remember(activity.conversation.id, activity.serviceUrl);
    }
    if (activity.type === 'invoke' && activity.name === FILE_CONSENT_INVOKE && where)
      return this.ctx.uploads.onConsent(activity, where.chat);
    const translated = translate(activity);
    switch (translated.kind) {
      case 'ignored':
        this.ctx.logger.debug(
          { type: activity.type, reason: translated.reason },
          'Teams activity not for the core',
        );
        if (activity.type !== 'invoke') return undefined;
        return activity.name === 'adaptiveCard/action'
          ? cardActionResponse(INACTIVE_CONTROL)
          : { status: 200 };
      case 'press': {
        const { chat, user, payload } = translated;
        const pending = pendingPress(this.ctx.clock, this.ctx.ackMs, (text) => this.#say(chat, text));
        await this.#deliver({
          type: 'button',
          chat,
          user,
          payload,
          respond: pending.respond,
          ...(translated.messageId ? { messageId: translated.messageId } : {}),
          ...(translated.deliveryId ? { deliveryId: translated.deliveryId } : {}),
        });
        return cardActionResponse(await pending.answer());
      }
      default: {
        const event = translated.event;
        const refusal = this.ctx.gate?.refusal(event.user.id);
        if (refusal) {
          await this.#say(event.chat, refusal);
          return undefined;
        }
        this.#lastUser.set(event.chat, event.user);
        if (event.type === 'message') {
          const files = incomingFiles(activity);
          if (files.length > 0) {
            event.attachments = await downloadFiles(files, {
              maxFileBytes: this.ctx.maxFileBytes,
              timeoutMs: this.ctx.downloadTimeoutMs,
              clock: this.ctx.clock,
              logger: this.ctx.logger,
              token: this.ctx.token,
            });
          }
        }
        await this.#deliver(event);
        return undefined;
      }
    }
  }

  async #deliver(event: ChatEvent): Promise<void> {
    try {
      await this.ctx.sink(event);
    } catch (err) {
      this.ctx.logger.error(
        { err, type: event.type, chat: event.chat },
        'the core did not take a Teams event',
      );
    }
  }

  /** A plain line in the chat; a failure is logged, never thrown at the SDK. */
  async #say(chat: string, text: string): Promise<void> {
    try {
      await this.ctx.outbound.send(chat, { text, format: plain });
    } catch (err) {
      this.ctx.logger.warn({ err, chat }, 'could not answer in a Teams chat');
    }
  }
}
