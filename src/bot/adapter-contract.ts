/**
 * The adapter contract. An adapter turns platform updates into
 * {@link ChatEvent}s and carries out the core's render operations; it
 * declares what its platform allows through {@link ChatCapabilities} instead
 * of the core asking "is this Telegram?". Adapters never pace or retry edits
 * themselves: they report a 429 as a `RATE_LIMITED` error and the core's one
 * scheduler waits.
 */

import type * as vocabulary from '../vocabulary.js';
import type { MentionPolicy } from '../vocabulary.js';
import type { MentionRules, RawMarkdownRules } from './format/mentions.js';
import type { Syntax } from './format/syntax.js';

export type { MentionPolicy } from '../vocabulary.js';
// The command catalogue lives in a file of its own; adapters still import it from here.
export {
  COMMAND_CATALOGUE,
  type CommandArgument,
  type CommandInfo,
  parseTextCommand,
  type TextCommand,
} from './command-catalogue.js';
export type { MentionRules, RawMarkdownRules } from './format/mentions.js';
export type { Syntax } from './format/syntax.js';

/** A person on a platform. `id` is the platform's own id (no prefix). */
export interface ChatUser {
  id: string;
  /** Display name, passed to the model so it knows who said what. */
  name: string;
}

// A file a person sent: the same word the session takes it in.
export type { Attachment, AttachmentProblem } from '../vocabulary.js';

import type { Attachment } from '../vocabulary.js';

/**
 * A short answer to the person who pressed a button or ran a slash command:
 * a toast (Telegram), an ephemeral message (Slack, Discord) or the
 * interaction's reply. Each call answers once; adapters make extra calls no-ops.
 */
export type Responder = (reply: { text: string; ephemeral?: boolean }) => Promise<void>;

interface EventBase {
  /** Opaque chat key `platform:chat[:thread]`, built by the adapter. */
  chat: string;
  user: ChatUser;
  /** The platform's delivery id (Telegram update_id, Slack event_id, Discord id); duplicates are ignored. */
  deliveryId?: string;
}

/** A new message for the agent. */
export interface MessageEvent extends EventBase {
  type: 'message';
  text: string;
  messageId: string;
  replyTo?: { messageId: string; text?: string; fromBot?: boolean };
  attachments?: Attachment[];
}

/** An earlier message was edited. */
export interface EditEvent extends EventBase {
  type: 'edit';
  text: string;
  messageId: string;
}

/** A bot command (`/compact keep names` -> name `compact`, args `keep names`). */
export interface CommandEvent extends EventBase {
  type: 'command';
  name: string;
  args: string;
  messageId?: string;
  /** Present for slash commands and interactions; the core answers through it when given. */
  respond?: Responder;
}

/** A button was pressed. `payload` is the string the core put on the button. */
export interface ButtonEvent extends EventBase {
  type: 'button';
  payload: string;
  messageId?: string;
  /** Acknowledges the press; the core always calls it exactly once. */
  respond: Responder;
}

/** The platform's own stop control (Telegram's draft stop button). */
export interface StopEvent extends EventBase {
  type: 'stop';
}

/** Everything an adapter hands the core. */
export type ChatEvent = MessageEvent | EditEvent | CommandEvent | ButtonEvent | StopEvent;

/**
 * Receives events. Resolves once the event is accepted (queued or handled),
 * never after a whole agent turn, so adapters can await it safely.
 */
export type EventSink = (event: ChatEvent) => Promise<void>;

/**
 * The core's access decision, asked by an adapter before it creates anything
 * for a person (a Discord thread for a mention or `/ask`, a Slack thread for
 * a slash command), so a stranger is refused without anything public made
 * for them.
 */
export interface AccessGate {
  /** Undefined when the platform user `userId` may use the bot; otherwise the one-line refusal to show them privately. */
  refusal(userId: string): string | undefined;
}

/**
 * How a chat's platform writes formatted text. The core renders the model's
 * Markdown into the dialect a chat's capabilities name and hands it back on
 * each message ({@link OutboundMessage.format}), so the adapter knows what
 * it got. A dialect is a plain object: the core keeps the two that belong to
 * no platform (`markdown` and `plain`, in `src/bot/format/dialect.ts`).
 *
 * A platform with a markup of its own defines its dialect in its folder
 * (`adapters/<id>/markdown.ts`): a unique `name`, its {@link Syntax} (built
 * from the escapers and the Markdown markup `src/bot/format/dialect.ts`
 * exports), its mention tokens, and `rawMarkdown` when a native stream of
 * its renders Markdown itself. Its capabilities return that object and its
 * outbound code compares `message.format` with it; nothing in `src/` changes.
 */
export interface Dialect {
  /**
   * Unique among dialects (`plain`, `telegram-html`): names what a message
   * shows, so a change of dialect is a change of message.
   */
  readonly name: string;
  /** Its markup; its text escaper turns every mention into text (policy `none`). */
  readonly syntax: Syntax;
  /** Its platform's mention tokens, kept as written where a chat's {@link MentionPolicy} allows. Absent: none. */
  readonly mentions?: MentionRules;
  /**
   * Present when the platform renders Markdown itself: a native stream then
   * carries the model's text as written, with the mentions the policy does
   * not allow broken where these rules say, instead of a rendering.
   */
  readonly rawMarkdown?: RawMarkdownRules;
}

/** A rate budget: at most `count` calls per sliding `windowMs`. */
export interface RateBudget {
  count: number;
  windowMs: number;
}

/** What a chat allows; asked per chat key (a private chat and a group differ). */
export interface ChatCapabilities {
  /** Longest text one message may hold, in the platform's counting. */
  maxMessageLength: number;
  /** Minimum gap between two edits of one message (or stream updates). */
  minEditIntervalMs: number;
  /** Calls allowed per chat over a window (Telegram groups: 20 per minute); the core paces by it. */
  budget?: RateBudget;
  /**
   * Further windows the platform counts the same calls in, when it has
   * several (Teams per conversation: 8 per 2 s, 1,800 per hour besides 60 per
   * 30 s). The core keeps every one: a call waits until it fits them all.
   */
  otherBudgets?: readonly RateBudget[];
  /** How the core renders Markdown for this chat. */
  dialect: Dialect;
  /** Mentions the model's text may make here (default `none`); the adapter enforces the same at the API. */
  mentions?: MentionPolicy;
  /** The adapter implements {@link NativeStreaming} for this chat. */
  nativeStream: boolean;
  /** A native stream must be finished and restarted before this age (Slack ~5 min, Telegram drafts ~30 s). */
  nativeStreamMaxMs?: number;
  /**
   * Opening a native stream is a platform request (Teams): it counts against
   * the chat's budget and starts the stream's pace, so the first update waits
   * `minEditIntervalMs` after it. Without it the opening is local (Telegram
   * drafts, Slack streams): no budget, and the first update goes out at once.
   */
  nativeStreamStartCounts?: boolean;
  /** Largest button payload in bytes (Telegram 64, Discord 100, Slack 2000). */
  buttonPayloadLimit: number;
  /** How long a typing indicator lasts; the core re-sends it while the model works. 0: no typing. */
  typingIntervalMs: number;
  /**
   * After each reply, send one line on where the session stands (context
   * used). The terminal shows it; in a chat platform it would be noise.
   */
  replyFooter?: boolean;
  /**
   * Largest file {@link ChatAdapter.sendFile} uploads to this chat, in bytes
   * (Telegram documents 50 MB, Discord 10 MiB). Absent: the chat takes no
   * files, and the agent is told so.
   */
  maxUploadBytes?: number;
  /**
   * Largest image shown inline (Telegram photos: 10 MB); a larger image goes
   * as a document. Absent: {@link ChatCapabilities.maxUploadBytes}.
   */
  maxImageUploadBytes?: number;
  /** Longest caption a file carries (Telegram 1024); the core sends a longer one as a message just before the file. */
  maxCaptionLength?: number;
  /** The chat shows where a file is instead of its contents (the terminal prints its path). */
  filesAsPaths?: boolean;
  /**
   * Only the bot and one person see this chat (a direct message, the
   * terminal): a sign-in link may be shown here. Absent: the chat may be
   * shared.
   */
  privateChat?: boolean;
}

/**
 * A file the core asks an adapter to upload, after the reply text written
 * before it: the agent's file as the SendFile tool read it, with the way the
 * core chose to show it. One file, one name, from the tool to the platform.
 */
export interface OutboundFile extends vocabulary.OutboundFile {
  /** `image`: shown inline (it fits `maxImageUploadBytes`); `document`: a file to download. */
  kind: 'image' | 'document';
}

/** A button the core asks for. `payload` fits the adapter's declared limit. */
export interface Button {
  label: string;
  payload: string;
  style?: 'primary' | 'danger';
  /**
   * Set on the Stop button of a streaming reply. It also marks that message
   * as the live reply, for an adapter that offers buttons another way and
   * has a stop control of its own (the terminal's Ctrl-C).
   */
  stopsReply?: boolean;
}

/** The rendered form of a message. */
export interface OutboundMessage {
  /** Text in `format`. */
  text: string;
  /** The dialect `text` is written in: the chat's, or the core's `plain` (after a formatting rejection). */
  format: Dialect;
  /** Rows of buttons; an empty array removes existing buttons on edit. */
  buttons?: Button[][];
  /** Message id to reply to / thread under. */
  replyTo?: string;
}

/** A message the platform accepted. */
export interface SentMessage {
  messageId: string;
}

/** An open native stream (Telegram draft, Slack chat stream). */
export interface StreamHandle {
  chat: string;
  /** Adapter-private state (draft id, stream ts). */
  id: string;
}

/**
 * Native streaming, for chats whose capabilities say `nativeStream: true`.
 * Updates carry the whole text so far; the adapter sends what its platform
 * needs (a draft replaces, a Slack stream appends the new suffix). Throwing
 * `STREAM_UNAVAILABLE` from `startStream` or an update makes the core carry
 * the reply on in edited messages; `NOT_FOUND` means the stream is gone.
 */
export interface NativeStreaming {
  startStream(chat: string, options: { replyTo?: string }): Promise<StreamHandle>;
  updateStream(handle: StreamHandle, message: OutboundMessage): Promise<void>;
  /** Ends the stream and persists `message` as a real message. */
  finishStream(handle: StreamHandle, message: OutboundMessage): Promise<SentMessage>;
}

/**
 * A chat platform. Errors are `SwitchboardError`s with these codes:
 * `RATE_LIMITED` (a `RateLimitError`, with `retryAfterMs` and `scope`),
 * `FORMAT_REJECTED` (the core resends plain), `MESSAGE_TOO_LONG`,
 * `NOT_FOUND` (the message or stream is gone), `STREAM_UNAVAILABLE` (no
 * native stream here),
 * `CAPABILITY_CHANGED` (re-read capabilities and retry: e.g. Telegram rich
 * messages answered 404), `FILE_TOO_LARGE` (an upload over the platform's
 * limit), `PLATFORM_ERROR`. "Not modified" is success.
 */
export interface ChatAdapter extends Partial<NativeStreaming> {
  /** Prefix of every chat key this adapter builds (`telegram`). */
  readonly platform: string;
  /** Budget across all chats (Telegram ~30 per second). */
  readonly globalBudget?: RateBudget;
  capabilities(chat: string): ChatCapabilities;
  /**
   * Starts receiving; events go to `sink`. Rejects with a clear message on
   * bad credentials. `gate` (given by the core) answers strangers before the
   * adapter opens a thread for them.
   */
  start(sink: EventSink, gate?: AccessGate): Promise<void>;
  /** Stops receiving and closes connections. */
  stop(): Promise<void>;
  send(chat: string, message: OutboundMessage): Promise<SentMessage>;
  edit(chat: string, messageId: string, message: OutboundMessage): Promise<void>;
  delete(chat: string, messageId: string): Promise<void>;
  typing(chat: string): Promise<void>;
  /**
   * Uploads a file into the chat (in its thread or topic), for chats that
   * declare `maxUploadBytes`. A file the platform finds too large is
   * `FILE_TOO_LARGE`; a 429 a `RateLimitError`, like every other call.
   */
  sendFile?(chat: string, file: OutboundFile): Promise<SentMessage>;
  /**
   * Opens a new thread or forum topic beside `chat`, starting with `text`,
   * for work that runs next to the chat (`/bg`): the new chat's key and a
   * link to it for a line in `chat`, and the id of
   * its first message when replies there should answer it. Undefined, or no
   * method, where the chat has no threads: the work then reports back in
   * `chat` itself.
   */
  openThread?(chat: string, text: string): Promise<OpenedThread | undefined>;
  /** Human label for a chat key in `/sessions` ("#general thread"). */
  describeChat?(chat: string): string;
  /**
   * Undefined while the adapter is connected to its platform (polling,
   * a socket up, a webhook server listening), else why not, in a few words:
   * the ready bot's `/readyz` reports it.
   */
  health?(): string | undefined;
  /**
   * Resolves when the person at the other end has closed the chat for good
   * (the terminal's input ended): the ready bot then lets the running
   * replies finish and stops. Absent for chats that never end.
   */
  readonly inputEnded?: Promise<void>;
}

/**
 * Extra routes served by an adapter's own HTTP server (a Telegram webhook,
 * Slack's HTTP mode) before the platform's handler: the ready bot mounts
 * /healthz, /readyz and /metrics this way, so a load balancer can probe the
 * same port the platform posts to, without the platform's secret. `handle`
 * answers true when it served the request.
 */
export interface HttpRoutes {
  handle(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse): boolean;
}

/** A thread or topic an adapter opened (`ChatAdapter.openThread`). */
export interface OpenedThread {
  /** The new chat's key. */
  chat: string;
  /** Its address (a URL), for a Markdown link in the chat it was opened from; absent when it has none. */
  url?: string;
  /** Its first message, which the work's reply answers. */
  messageId?: string;
}

/** The platform prefix of a chat key (`telegram:42:7` -> `telegram`). */
export function chatPlatform(chat: string): string {
  const i = chat.indexOf(':');
  return i < 0 ? chat : chat.slice(0, i);
}
