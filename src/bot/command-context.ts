/**
 * What a command handler gets, and the rule for commands that must not
 * overlap a running reply.
 */
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Scheduler } from '../schedule/scheduler.js';
import type { InteractiveSession, PriceTable } from '../session/index.js';
import type { SessionStore } from '../store/types.js';
import type { AccessPolicy } from './access.js';
import type { BackgroundRuns } from './bg-runs.js';
import type { Budgets } from './budgets.js';
import type { ChatRuntime } from './chat-runtime.js';
import type { Rules } from './rules.js';
import type { SessionRegistry } from './sessions-registry.js';
import { say } from './text.js';

/** Who ran a command, where, and how to answer. */
export interface CommandContext {
  chat: string;
  /** `platform:userId`. */
  user: string;
  userName: string;
  /** Owner key for sessions this user creates. */
  owner: string;
  runtime: ChatRuntime;
  /** The message that carried the command, when it was one (not a slash command). */
  messageId?: string;
  registry: SessionRegistry;
  sessionStore: SessionStore;
  /** List prices for `/cost` and `/status`. */
  prices: PriceTable;
  /** US dollars per minute of transcribed audio, when the operator gave one. */
  voicePrice?: number;
  access: AccessPolicy;
  /** Schedules and per-chat settings, when the bot has them. */
  scheduler?: Scheduler;
  /** Background runs (`/bg`). */
  backgroundRuns?: BackgroundRuns;
  /** Spending caps, for `/budget`. */
  budgets?: Budgets;
  /** Stored rules, for `/rules`. */
  rules?: Rules;
  logger: Logger;
  answer: (text: string) => Promise<void>;
  /**
   * Waits for a save the command made in this chat's session and says in the
   * chat if it failed (once) or if saving works again, as after a turn.
   */
  reportSave: (session: InteractiveSession) => Promise<void>;
}

/**
 * Runs `work` in the chat's queue slot when nothing else runs, so it never
 * overlaps a turn; otherwise asks the user to wait or /stop.
 */
export async function whenIdle(
  ctx: CommandContext,
  name: string,
  work: () => Promise<string>,
  abort?: () => void,
): Promise<void> {
  if (ctx.runtime.busy) {
    await ctx.answer(say.waitForReply(name));
    return;
  }
  await new Promise<void>((resolve) => {
    ctx.runtime.enqueue({
      kind: 'task',
      name,
      ...(abort ? { abort } : {}),
      run: async () => {
        try {
          await ctx.answer(await work());
        } catch (err) {
          await ctx.answer(`/${name} failed: ${describeError(err)}`);
        } finally {
          resolve();
        }
      },
    });
  });
}
