/**
 * The outbox: the only way the bot core talks to adapters. It renders
 * Markdown per dialect, splits long text, paces every call per chat (one
 * scheduler for all adapters), honours `retry_after`, and falls back to
 * plain text when a platform rejects formatting.
 */
import type { Button, ChatCapabilities, OutboundFile } from '../adapter-contract.js';

/** Options for a one-off message. */
export interface SendOptions {
  /** Buttons on the last part. */
  buttons?: Button[][];
  replyTo?: string;
  /** Send as plain text, unrendered. */
  plain?: boolean;
}

/** A reply streaming into a chat, in as many messages as its length needs. */
export interface ReplyStream {
  /** Adds model text (Markdown). Cheap: called once per delta. */
  append(delta: string): void;
  /** A compact status line under the text (tool activity); undefined clears it. */
  setStatus(line: string | undefined): void;
  /**
   * Makes everything streamed so far permanent (a draft becomes a real
   * message) and starts further text in a new message. Used before an
   * approval prompt so the prompt appears after the text that led to it.
   */
  checkpoint(): Promise<void>;
  /**
   * Delivers the exact full text and removes live buttons. If the final edit
   * keeps failing, the missing text is sent as new messages.
   */
  finish(options?: { note?: string }): Promise<DeliveredReply>;
  /** Ids of the messages holding the reply so far. */
  readonly messageIds: readonly string[];
  /** The full Markdown text appended so far. */
  readonly text: string;
}

/** What {@link ReplyStream.finish} delivered. */
export interface DeliveredReply {
  messageIds: string[];
  text: string;
}

/** Options for {@link Outbox.stream}. */
export interface StreamOptions {
  replyTo?: string;
  /** Buttons on the newest streaming message (the Stop button); removed on finish. */
  liveButtons?: Button[][];
}

/**
 * @example
 * const outbox = createOutbox({ adapters: [telegram], clock, logger });
 * const reply = outbox.stream('telegram:42', { liveButtons: [[stopButton]] });
 * session.on('text_delta', (d) => reply.append(d));
 * await reply.finish();
 */
export interface Outbox {
  send(chat: string, markdown: string, options?: SendOptions): Promise<string[]>;
  /** Edits one message; the newest text wins, one edit in flight per message. */
  edit(chat: string, messageId: string, markdown: string, options?: SendOptions): Promise<void>;
  delete(chat: string, messageId: string): Promise<void>;
  /**
   * Uploads a file after every message of the chat asked for before it,
   * paced and retried like them; resolves with the new message's id, rejects
   * with the adapter's error (`FILE_TOO_LARGE` at once, others after retries).
   */
  sendFile(chat: string, file: OutboundFile): Promise<string>;
  /** Shows typing until {@link Outbox.stopTyping}; re-sent as the adapter's interval requires. */
  startTyping(chat: string): void;
  stopTyping(chat: string): void;
  stream(chat: string, options?: StreamOptions): ReplyStream;
  /** Resolves when no call is queued or in flight. */
  idle(): Promise<void>;
  /** What the chat allows, as its adapter declares it (the length shrunk after a MESSAGE_TOO_LONG). */
  capabilities(chat: string): ChatCapabilities;
}
