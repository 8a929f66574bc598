/**
 * The chat commands, the same words on every platform. Each answers in one
 * line or a short list. /stop, /status, /cost, /tools and /help answer at once, even while
 * a reply runs; /mode and /rename act at once (they only touch the session's
 * settings); /new, /resume, /fork and /compact change what the chat talks to
 * or rewrite history, so while a reply runs they ask to wait or /stop it.
 */
import { describeError, isErrorCode } from '../errors.js';
import type { InteractiveSession } from '../session/index.js';
import { validateSessionName } from '../store/index.js';
import { PERMISSION_MODES, type PermissionMode } from '../vocabulary.js';
import { COMMAND_CATALOGUE, type CommandInfo } from './adapter-contract.js';
import { runBg, runBtw } from './aside-commands.js';
import { runBudget } from './budget-command.js';
import { type CommandContext, whenIdle } from './command-context.js';
import { describeUsage, runCost } from './cost-command.js';
import { runMcp } from './mcp-command.js';
import { runRules } from './rules-command.js';
import { runBusy, runSchedule, runSchedules, runTimezone, runUnschedule } from './schedule-commands.js';
import { listSessions, resumeSession } from './session-commands.js';
import { say } from './text.js';
import { runTools, toolServerLines } from './tools-command.js';
import { runWeb, webStatusLine } from './web-command.js';

export type { CommandContext } from './command-context.js';

/** How the core runs one catalogue entry. */
interface CommandRunner {
  /** True when the command takes arguments; others refuse extra words. */
  takesArgs: boolean;
  run: (ctx: CommandContext, args: string) => Promise<void>;
}

/** A catalogue entry with the function that carries it out. */
type RunnableCommand = CommandInfo & CommandRunner;

const RUNNERS: Record<string, CommandRunner> = {
  new: { takesArgs: false, run: runNew },
  compact: { takesArgs: true, run: runCompact },
  rename: { takesArgs: true, run: runRename },
  // Stopping must never fail on a stray word ("/stop now"): its arguments are ignored.
  stop: { takesArgs: true, run: runStop },
  status: { takesArgs: false, run: runStatus },
  cost: { takesArgs: false, run: runCost },
  budget: { takesArgs: true, run: runBudget },
  rules: { takesArgs: true, run: runRules },
  tools: { takesArgs: false, run: runTools },
  mcp: { takesArgs: true, run: runMcp },
  sessions: { takesArgs: false, run: listSessions },
  resume: { takesArgs: true, run: resumeSession },
  fork: { takesArgs: false, run: runFork },
  mode: { takesArgs: true, run: runMode },
  schedule: { takesArgs: true, run: runSchedule },
  schedules: { takesArgs: false, run: runSchedules },
  unschedule: { takesArgs: true, run: runUnschedule },
  timezone: { takesArgs: true, run: runTimezone },
  busy: { takesArgs: true, run: runBusy },
  btw: { takesArgs: true, run: runBtw },
  bg: { takesArgs: true, run: runBg },
  web: { takesArgs: true, run: runWeb },
  help: { takesArgs: false, run: runHelp },
};

/** Every command of the catalogue with its runner, in the order /help lists them. */
export const COMMANDS: Readonly<Record<string, RunnableCommand>> = Object.fromEntries(
  COMMAND_CATALOGUE.map((info) => {
    const runner = RUNNERS[info.name];
    if (!runner) throw new Error(`The command catalogue names "${info.name}", which the core cannot run.`);
    return [info.name, { ...info, ...runner }];
  }),
);

/** `/Compact@my_bot` -> `compact`. */
export function normalizeCommandName(name: string): string {
  return name.trim().replace(/^\//, '').replace(/@.*$/, '').toLowerCase();
}

/** Runs one command; every outcome, error included, becomes one answer. */
export async function runCommand(ctx: CommandContext, rawName: string, rawArgs: string): Promise<void> {
  const name = normalizeCommandName(rawName);
  const spec = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!spec) {
    await ctx.answer(say.unknownCommand(name.slice(0, 40)));
    return;
  }
  const args = rawArgs.trim();
  if (!spec.takesArgs && args) {
    await ctx.answer(`/${name} takes no arguments. Usage: ${spec.usage}`);
    return;
  }
  ctx.logger.info({ chat: ctx.chat, command: name }, 'command');
  try {
    await spec.run(ctx, args);
  } catch (err) {
    ctx.logger.error({ chat: ctx.chat, command: name, err: describeError(err) }, 'command failed');
    await ctx.answer(`/${name} failed: ${describeError(err)}`);
  }
}

async function runNew(ctx: CommandContext): Promise<void> {
  await whenIdle(ctx, 'new', async () => {
    const session = await ctx.registry.create(ctx.chat, ctx.owner);
    await ctx.reportSave(session);
    return `Started a new session (${session.getSession().getSessionId()}). /resume brings back earlier ones.`;
  });
}

async function runCompact(ctx: CommandContext, focus: string): Promise<void> {
  if (focus.length > 2_000) {
    await ctx.answer(`The focus is ${focus.length} characters; keep it under 2,000. Usage: /compact [focus]`);
    return;
  }
  if (!(await ctx.registry.boundId(ctx.chat))) {
    await ctx.answer('Nothing to compact yet: this chat has no session.');
    return;
  }
  let session: InteractiveSession | undefined;
  await whenIdle(
    ctx,
    'compact',
    async () => {
      const held = await ctx.registry.acquire(ctx.chat, ctx.owner);
      session = held.session;
      try {
        const { before, after } = await session.compactContext(focus || undefined);
        await ctx.reportSave(session);
        return say.compacted(before, after);
      } catch (err) {
        if (isErrorCode(err, 'ABORTED')) return 'Compaction stopped; the history is unchanged.';
        return `Compaction failed: ${describeError(err)} The history is unchanged.`;
      } finally {
        held.release();
      }
    },
    () => session?.abort(),
  );
}

async function runRename(ctx: CommandContext, args: string): Promise<void> {
  if (!args) {
    await ctx.answer('Usage: /rename <name>, for example /rename parser-refactor');
    return;
  }
  let name: string;
  try {
    name = validateSessionName(args);
  } catch (err) {
    await ctx.answer(describeError(err));
    return;
  }
  await ctx.runtime.exclusive(async () => {
    const session = await ctx.registry.forChat(ctx.chat, ctx.owner);
    session.setName(name);
    await ctx.reportSave(session);
  });
  await ctx.answer(`Renamed this session to "${name}".`);
}

async function runStop(ctx: CommandContext): Promise<void> {
  const { dropped, running } = ctx.runtime.stop();
  await ctx.answer(running || dropped ? say.stopped(dropped, running) : say.nothingToStop);
}

async function runStatus(ctx: CommandContext): Promise<void> {
  const session = await ctx.registry.existing(ctx.chat);
  const queue = ctx.runtime.queueLength;
  const activity = `${ctx.runtime.runningTurnId ? 'a reply is running' : 'idle'}, ${queue} queued`;
  const operator = ctx.access.isOperator(ctx.user);
  const servers = toolServerLines(ctx.registry.toolsReport(), operator);
  if (!session) {
    await ctx.answer([`No session yet: send a message to start one. (${activity})`, ...servers].join('\n'));
    return;
  }
  const state = session.getContextState();
  const tokens = `${state.usedTokens.toLocaleString('en-US')} of ${state.maxTokens.toLocaleString('en-US')} tokens`;
  const name = session.getName();
  const lines = [
    say.sessionLine(name, session.getSession().getSessionId()),
    `Context: ${say.percent(state.usedPercentage)} used (${tokens})`,
    `Model: ${session.getModel()} (${session.getModelInfo().contextWindow.toLocaleString('en-US')}-token window)`,
    `Cost: ${describeUsage(session.getUsage(), ctx.sessions.prices)}`,
    `Permission mode: ${session.getSession().getPermissionMode()}`,
    webStatusLine(session),
    `Activity: ${activity}`,
  ];
  const sandbox = await ctx.registry.sandboxLine(operator);
  await ctx.answer([...lines, ...servers, ...(sandbox ? [sandbox] : [])].join('\n'));
}

async function runFork(ctx: CommandContext): Promise<void> {
  if (!(await ctx.registry.boundId(ctx.chat))) {
    await ctx.answer('Nothing to fork yet: this chat has no session.');
    return;
  }
  await whenIdle(ctx, 'fork', async () => {
    const from = await ctx.registry.boundId(ctx.chat);
    const copy = await ctx.registry.fork(ctx.chat, ctx.owner, ctx.access.isAdmin(ctx.user));
    await ctx.reportSave(copy);
    return `Forked ${from} into ${copy.getSession().getSessionId()}; this chat continues the copy.`;
  });
}

async function runMode(ctx: CommandContext, args: string): Promise<void> {
  const mode = PERMISSION_MODES.find((m) => m.toLowerCase() === args.toLowerCase());
  if (!mode) {
    await ctx.answer(
      `Usage: ${COMMANDS.mode?.usage}. ${args ? `"${args.slice(0, 40)}" is not a mode.` : ''}`.trim(),
    );
    return;
  }
  if (mode === 'bypassPermissions' && !ctx.access.isAdmin(ctx.user)) {
    await ctx.answer('Only an admin can use /mode bypassPermissions.');
    return;
  }
  await ctx.runtime.exclusive(async () => {
    const session = await ctx.registry.forChat(ctx.chat, ctx.owner);
    session.getSession().setPermissionMode(mode satisfies PermissionMode);
    await ctx.reportSave(session);
  });
  await ctx.answer(`Permission mode is now ${mode}.`);
}

async function runHelp(ctx: CommandContext): Promise<void> {
  const lines = Object.values(COMMANDS).map((c) => `${c.usage} - ${c.help}`);
  await ctx.answer(['Commands:', ...lines].join('\n'));
}
