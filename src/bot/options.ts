/**
 * The options and the handle of the bot core.
 */
import type { Clock } from '../clock.js';
import type { ChatLease, ControlBus } from '../cluster/types.js';
import type { Logger } from '../logger.js';
import type { Provider } from '../provider/types.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import type { PermissionMode, ProjectAccess } from '../session/types.js';
import type { BotStateStore, SessionStore } from '../store/types.js';
import type { Tool } from '../tools/types.js';
import type { ChatAdapter, EventSink } from './adapter-contract.js';
import type { Outbox } from './stream/types.js';

/** Everything {@link createBot} needs; only the first five are required. */
export interface BotOptions {
  adapters: ChatAdapter[];
  provider: Provider;
  sessionStore: SessionStore;
  stateStore: BotStateStore;
  /** The tools' working directory (created if missing). */
  workspace: string;
  /** Model for new sessions; default the provider's. */
  model?: string;
  /** Permission mode of new sessions; default `default`. */
  permissionMode?: PermissionMode;
  /** `platform:userId` entries allowed to use the bot. None: the bot tells people their id and runs nothing. */
  allowedUsers?: readonly string[];
  /** `platform:userId` entries that may answer anyone's approvals, see all sessions and use bypassPermissions. */
  admins?: readonly string[];
  /** Person -> their ids on several platforms; they share sessions and count as one owner. */
  linkedUsers?: Readonly<Record<string, readonly string[]>>;
  /** Platforms whose users are always allowed; default `['console']` (the local operator). */
  trustedPlatforms?: readonly string[];
  /** Unanswered approvals are denied after this; default 600,000 ms. */
  approvalTimeoutMs?: number;
  /** Sessions unused this long leave memory; default 600,000 ms. */
  idleReleaseMs?: number;
  /** Messages waiting per chat while a reply runs; default 20. */
  queueLimit?: number;
  projectAccess?: ProjectAccess;
  /** Give each chat key its own folder under `workspace`. */
  workspacePerChat?: boolean;
  /** Tools the sessions get; default the built-in tools. */
  tools?: Tool[];
  /** Environment for the Bash tool, already scrubbed of the bot's secrets. */
  /**
   * The tools' sandbox, one per turn (default: a new `Sandbox()` in `auto`
   * mode). Its state shows in `/status` when it is not in force.
   */
  sandbox?: Sandbox;
  toolEnv?: Record<string, string>;
  /** An outbox to use instead of building one over `adapters`. */
  outbox?: Outbox;
  /**
   * One turn per chat across replicas: a chat's turn runs only while this
   * replica holds the chat's lease. None: no leasing (one process).
   */
  lease?: ChatLease;
  /** Carries /stop, button presses and edits to the replica running the chat's turn. */
  bus?: ControlBus;
  /** Lease ttl: how long a dead replica keeps a chat; default 30,000 ms. */
  leaseTtlMs?: number;
  /**
   * How long a message waits in this replica's queue while another replica
   * holds its chat; default 15 minutes, then the chat is asked to send it again.
   */
  leaseWaitMs?: number;
  /**
   * A model stream silent this long is cancelled and the chat told so; the
   * session stays usable. Default 120 s.
   */
  streamIdleTimeoutMs?: number;
  clock?: Clock;
  logger?: Logger;
}

/** A running bot core. */
export interface Bot {
  /** Starts every adapter with {@link Bot.dispatch} as its sink, then tells chats whose reply a crash cut off. */
  start(): Promise<void>;
  /**
   * Stops taking messages, stops running replies with a notice to their
   * chats, waits for the outbox, closes the sessions and flushes the stores.
   */
  stop(): Promise<void>;
  /** The event sink: accepts an event quickly and never waits for a whole turn. */
  dispatch: EventSink;
  /** The outbox every message goes through. */
  readonly outbox: Outbox;
  /** Resolves when no chat has a running or queued turn, and no background answer is pending. */
  idle(): Promise<void>;
}
