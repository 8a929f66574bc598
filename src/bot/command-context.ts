/**
 * What a command handler gets, and the rule for commands that must not
 * overlap a running reply.
 */
import { describeError } from '../errors.js';
import type { InteractiveSession } from '../session/index.js';
import type { BotContext } from './bot-context.js';
import type { ChatRuntime } from './chat-runtime.js';
import { say } from './text.js';

/** The bot's parts commands use: sessions (their store, their prices), caps, rules, schedules. */
type CommandParts =
  | 'sessions'
  | 'registry'
  | 'access'
  | 'logger'
  | 'voice'
  | 'scheduler'
  | 'backgroundRuns'
  | 'budgets'
  | 'rules';

/** Who ran a command, where, and how to answer, with the bot's parts it may use. */
export interface CommandContext extends Pick<BotContext, CommandParts> {
  chat: string;
  /** `platform:userId`. */
  user: string;
  userName: string;
  /** Owner key for sessions this user creates. */
  owner: string;
  runtime: ChatRuntime;
  /** The message that carried the command, when it was one (not a slash command). */
  messageId?: string;
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
