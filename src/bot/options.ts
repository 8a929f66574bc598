/**
 * The options and the handle of the bot core, grouped by concern: where
 * events come from (adapters), where sessions come from (a session factory),
 * what is kept between messages (stores), who may do what (access), bounds
 * (limits), several replicas (cluster), time and logs.
 */
import type { Clock } from '../clock.js';
import type { ChatLease, ControlBus } from '../cluster/types.js';
import type { Logger } from '../logger.js';
import type { BusyMode, ScheduleStore, ScheduleTrigger } from '../schedule/types.js';
import type { SessionFactory } from '../session/factory.js';
import type { ControlsStore } from '../store/controls.js';
import type { BotStateStore } from '../store/types.js';
import type { TokenUsage } from '../vocabulary.js';
import type { AccessOptions } from './access.js';
import type { ChatAdapter, EventSink } from './adapter-contract.js';
import type { BudgetCaps } from './budgets.js';
import type { TurnOutcome } from './queued-message.js';
import type { SaveHealthView } from './save-health.js';
import type { Outbox } from './stream/types.js';
import type { VoiceOptions } from './voice.js';

/** What the bot keeps between messages besides the sessions (those are the factory's). */
export interface BotStores {
  /** Chat -> session bindings, delivery ids already handled, turns in flight. */
  state: BotStateStore;
  /**
   * Spend per person, chat and period, budget extensions and chat caps;
   * default in memory (files or PostgreSQL keep them across restarts and replicas).
   */
  controls?: ControlsStore;
}

/** The bot's bounds; every one has a default. */
export interface BotLimits {
  /** Unanswered approvals are denied after this; default 600,000 ms. */
  approvalTimeoutMs?: number;
  /** Sessions unused this long leave memory; default 600,000 ms. */
  idleReleaseMs?: number;
  /** Messages waiting per chat while a reply runs; default 20. */
  queueLimit?: number;
  /** Spending caps in dollars at the bot's prices; default none. */
  budgets?: BudgetCaps;
}

/** Several replicas of one bot sharing their chats. */
export interface ClusterOptions {
  /** One turn per chat across replicas: a chat's turn runs only while this replica holds its lease. */
  lease: ChatLease;
  /** Carries /stop, button presses and edits to the replica running the chat's turn, and their answers back. */
  bus: ControlBus;
  /** Lease ttl: how long a dead replica keeps a chat; default 30,000 ms. */
  leaseTtlMs?: number;
  /**
   * How long a message waits in this replica's queue while another replica
   * holds its chat; default 15 minutes, then the chat is asked to send it again.
   */
  leaseWaitMs?: number;
  /** How long a button press sent to another replica waits for its answer; default 5,000 ms. */
  answerTimeoutMs?: number;
}

export type { TurnOutcome } from './queued-message.js';

/**
 * Told when turns start and end (the ready bot counts them as metrics).
 * Called synchronously from the chat's runtime: keep it cheap, never throw.
 */
export interface BotObserver {
  turnStarted?(chat: string): void;
  turnFinished?(turn: { chat: string; outcome: TurnOutcome; model: string; usage?: TokenUsage }): void;
  /** Replicas: this replica took over a chat whose reply another replica left cut off. */
  chatTakenOver?(chat: string): void;
}

/** The bot's levels at one moment (the ready bot's gauges read them). */
export interface BotStats {
  /** Messages waiting behind running replies, all chats together. */
  queued: number;
  /** Chats with a reply running. */
  running: number;
  /** Sessions held in memory. */
  loadedSessions: number;
  /** Approval prompts waiting for an answer. */
  pendingApprovals: number;
}

/**
 * Work that starts without a message: schedules, and each chat's settings
 * for them and for messages that arrive while a reply runs.
 */
export interface ScheduleOptions {
  /** Where schedules and chat settings live (`createFileScheduleStore` or the PostgreSQL one). */
  store: ScheduleStore;
  /** What wakes due runs; default timers in this process (one process on files). */
  trigger?: ScheduleTrigger;
  /** Default time zone of chats (`SWITCHBOARD_TIMEZONE`); default UTC. */
  timezone?: string;
  /** How late a run missed while the bot was down may still run; default one hour. */
  graceMs?: number;
  /** Approvals in scheduled runs: `ask` (posted, like any) or `deny`; default `ask`. */
  unattendedApprovals?: 'ask' | 'deny';
  /** Default busy mode of chats (`SWITCHBOARD_BUSY`); default `steer`. */
  busy?: BusyMode;
}

/** Everything {@link createBot} needs; `adapters`, `sessions` and `stores` are required. */
export interface BotOptions {
  adapters: ChatAdapter[];
  /** Opens every chat's session (provider, tools, workspace and session store live there). */
  sessions: SessionFactory;
  stores: BotStores;
  /** Who may use the bot. With no allowlist the bot tells people their id and runs nothing. */
  access?: AccessOptions;
  limits?: BotLimits;
  /** Run as one of several replicas; without it this process is the only one (no lease, no bus). */
  cluster?: ClusterOptions;
  /** An outbox to use instead of building one over `adapters`. */
  outbox?: Outbox;
  /** Told when turns start and end. */
  observer?: BotObserver;
  /** Voice notes: transcribed through this service; without it each gets one line saying it cannot be heard. */
  voice?: VoiceOptions;
  /** Schedules and per-chat settings; without them /schedule and its kin say they are not set up. */
  schedules?: ScheduleOptions;
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
  /** Queue depth, running replies, loaded sessions and pending approvals now. */
  stats(): BotStats;
  /** Whether chats' histories are being saved (for a readiness check; read-only). */
  readonly saveHealth: SaveHealthView;
}
