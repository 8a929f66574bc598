/**
 * What the bot's parts share: built once in bot.ts and handed down as it
 * is. The router takes all of it; a chat's runtime, a turn and a command
 * take the parts they use (`Pick<BotContext, …>`) next to what is their own,
 * so a new shared part is added here once, not copied from list to list.
 */
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Scheduler } from '../schedule/scheduler.js';
import type { BusyMode } from '../schedule/types.js';
import type { SessionFactory } from '../session/index.js';
import type { BotStateStore } from '../store/types.js';
import type { AccessPolicy } from './access.js';
import type { ApprovalRegistry } from './approvals.js';
import type { Background } from './background.js';
import type { BackgroundRuns } from './bg-runs.js';
import type { Budgets } from './budgets.js';
import type { ChatGateFactory } from './chat-lease.js';
import type { BotObserver } from './options.js';
import type { UnattendedApprovals } from './queued-message.js';
import type { RulePrompts } from './rule-prompts.js';
import type { Rules } from './rules.js';
import type { SaveHealth } from './save-health.js';
import type { SessionRegistry } from './sessions-registry.js';
import type { Outbox } from './stream/types.js';
import type { VoiceOptions } from './voice.js';

/** The bot's shared parts and settings. */
export interface BotContext {
  /** Opens sessions; its store lists them (/sessions, /resume), its prices price their usage. */
  sessions: SessionFactory;
  /** Which session each chat talks to, and the sessions held in memory. */
  registry: SessionRegistry;
  stateStore: BotStateStore;
  outbox: Outbox;
  /** The approval prompts waiting in this process. */
  approvals: ApprovalRegistry;
  access: AccessPolicy;
  /** Sends and edits nobody waits for, kept so shutdown can wait for them. */
  background: Background;
  /** Messages waiting per chat while a reply runs. */
  queueLimit: number;
  /** How long an approval waits, and a turn paused on a budget waits for an extension. */
  approvalTimeoutMs: number;
  clock: Clock;
  logger: Logger;
  /** How each chat runs its work; default at once (one process). Several replicas: under the chat's lease. */
  gate?: ChatGateFactory;
  /** Told when turns start and end. */
  observer?: BotObserver;
  /** Failed and recovered saves, said in the chat. */
  saveHealth?: SaveHealth;
  /** Hears voice notes; without it they get the one line that says they cannot be heard. */
  voice?: VoiceOptions;
  /** Schedules and per-chat settings (/schedule, /timezone, /busy); absent: those commands say so. */
  scheduler?: Scheduler;
  /** How approvals are answered in scheduled runs; default `ask`. */
  unattendedApprovals?: UnattendedApprovals;
  /** Busy mode of chats when there is no scheduler to keep per-chat settings; default `steer`. */
  busy?: BusyMode;
  /** Background runs (`/bg`), stopped with the chats at shutdown. */
  backgroundRuns?: BackgroundRuns;
  /** Spending caps (`/budget`), checked before every model request. */
  budgets?: Budgets;
  /** The chats' stored rules: a call one covers runs without a prompt (`/rules`). */
  rules?: Rules;
  /** The `Always allow` presses that make rules. */
  rulePrompts?: RulePrompts;
}
