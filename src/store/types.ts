/**
 * The store contracts. Both are async so a networked store (PostgreSQL) can
 * replace the lowdb files without touching the session or the bot core.
 */
import type { ContextWindowState, HistoryMessage, PermissionMode, UsageLedger } from '../vocabulary.js';

/** Schema version written into every record; records of another version are `unsupported`. */
export const SESSION_SCHEMA_VERSION = 1;

/** A session's small record: everything but the messages. */
export interface SessionMeta {
  version: number;
  id: string;
  name?: string;
  /** Owner key (`platform:userId`, or a linked person's name). */
  owner?: string;
  createdAt: string;
  updatedAt: string;
  model?: string;
  permissionMode: PermissionMode;
  contextState: ContextWindowState;
  /** Provider-reported usage of the last reply, so resume restores tracking exactly. */
  lastReportedTokens?: number;
  /** Number of messages in the record, kept so `list()` need not read them. */
  messageCount: number;
  /** Scoped "allow for this session" grants (`Bash:npm test`). */
  allowedScopes?: string[];
  /** Id of the session this one was forked from. */
  forkedFrom?: string;
  /** Tokens every model request of this session used, per UTC day and model (absent until the first). */
  usage?: UsageLedger;
  /**
   * The conversation's frozen `system` and `tools` (tools as their JSON text,
   * so a store that reorders object keys cannot change a byte) and the
   * permission mode it began with. Absent until the first turn.
   */
  frame?: StoredFrame;
  /** `off` when the chat turned the web tools off (`/web off`). */
  web?: 'off';
  /**
   * A turn paused in the middle of its tool calls, waiting for a person
   * (see `session/paused-turn.ts`); absent when no turn waits.
   */
  pausedTurn?: StoredPausedTurn;
}

/** {@link SessionMeta.pausedTurn}: kept as plain JSON, checked by the session when it resumes. */
export type StoredPausedTurn = Record<string, unknown>;

/** {@link SessionMeta.frame}. */
export interface StoredFrame {
  system: string;
  tools: string;
  mode: string;
  /** `off` when the model was told not to use its web tools (absent: on). */
  web?: 'on' | 'off';
}

/** A whole session: the record plus its messages. */
export interface SessionRecord extends SessionMeta {
  messages: HistoryMessage[];
}

/**
 * Why a record can or cannot be used. Only `valid` carries the record;
 * `corrupt` and `unsupported` files are never overwritten.
 */
export type StoreOutcome<T> =
  | { status: 'valid'; record: T }
  | { status: 'missing' }
  | { status: 'corrupt'; reason: string; path?: string }
  | { status: 'unsupported'; version: unknown; path?: string };

/** One row of {@link SessionStore.list}. */
export interface StoreListEntry {
  id: string;
  outcome: StoreOutcome<SessionMeta>;
}

/**
 * Where sessions live.
 *
 * @example
 * const store = createUserSessionStore('./data/sessions');
 * for (const { id, outcome } of await store.list()) {
 *   if (outcome.status === 'valid') console.log(id, outcome.record.name);
 * }
 */
export interface SessionStore {
  load(id: string): Promise<StoreOutcome<SessionRecord>>;
  list(): Promise<StoreListEntry[]>;
  /** Writes a whole new session (new, fork). Refuses to overwrite a corrupt or unsupported record. */
  create(record: SessionRecord): Promise<void>;
  /** Appends a turn's new messages and rewrites only the small record. */
  append(id: string, messages: HistoryMessage[], meta: SessionMeta): Promise<void>;
  /** Replaces all messages (compaction): a new messages file, then the record. */
  replace(id: string, messages: HistoryMessage[], meta: SessionMeta): Promise<void>;
  /** Rewrites only the small record (rename, mode, grants). */
  updateMeta(meta: SessionMeta): Promise<void>;
  /**
   * Moves a corrupt or unsupported session's files aside
   * (`<name>.corrupt-<time>`), byte for byte; returns the new paths.
   */
  quarantine(id: string): Promise<string[]>;
  /** Waits for pending writes. */
  flush(): Promise<void>;
}

/** What a chat key points at. */
export interface ChatBinding {
  sessionId: string;
  /** Owner of the session the chat was bound to. */
  owner?: string;
  updatedAt: string;
}

/** A turn that was running when recorded; left over after a crash. */
export interface ActiveTurn {
  chat: string;
  sessionId: string;
  startedAt: string;
  /** Message id of the streaming reply, if one was sent. */
  replyMessageId?: string;
}

/**
 * The bot core's own small state: chat key -> session, the window of
 * delivery ids already handled, and turns in flight (for crash notices).
 * Written only when something changes, never per delta.
 */
export interface BotStateStore {
  getChat(chat: string): Promise<ChatBinding | undefined>;
  setChat(chat: string, binding: ChatBinding): Promise<void>;
  listChats(): Promise<Array<[chat: string, binding: ChatBinding]>>;
  /** Records a delivery id; false when it was seen before (a redelivery). */
  markDelivered(deliveryId: string): Promise<boolean>;
  beginTurn(turn: ActiveTurn): Promise<void>;
  endTurn(chat: string): Promise<void>;
  /** Turns begun and never ended (the process died mid-turn). */
  activeTurns(): Promise<ActiveTurn[]>;
  flush(): Promise<void>;
}
