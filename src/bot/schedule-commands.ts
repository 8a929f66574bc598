/**
 * /schedule, /schedules, /unschedule, /timezone and /busy: schedules of the
 * chat, the time zone their calendar forms are read in, and what a message
 * written while a reply runs does. They act at once, even while a reply
 * runs: they touch only the schedule store.
 */
import { describeError, isErrorCode } from '../errors.js';
import type { Scheduler } from '../schedule/scheduler.js';
import { BUSY_MODES } from '../schedule/types.js';
import { WHEN_FORMS } from '../schedule/when.js';
import type { CommandContext } from './command-context.js';
import { say } from './text.js';

/** Runs `work` with the bot's scheduler, or says the bot has none. */
async function withScheduler(ctx: CommandContext, work: (scheduler: Scheduler) => Promise<string>) {
  if (!ctx.scheduler) {
    await ctx.answer(say.noSchedules);
    return;
  }
  let text: string;
  try {
    text = await work(ctx.scheduler);
  } catch (err) {
    if (!isErrorCode(err, 'INVALID_SCHEDULE')) throw err;
    text = describeError(err);
  }
  await ctx.answer(text);
}

/** `/schedule <when> <prompt>`. */
export function runSchedule(ctx: CommandContext, args: string): Promise<void> {
  return withScheduler(ctx, async (scheduler) => {
    if (!args) return `Usage: /schedule <when> <prompt>, where <when> is ${WHEN_FORMS}.`;
    const schedule = await scheduler.create(
      { chat: ctx.chat, maker: ctx.user, makerName: ctx.userName, owner: ctx.owner },
      args,
    );
    return scheduler.confirmation(schedule);
  });
}

/** `/schedules`: id, next run, maker and prompt of each. */
export function runSchedules(ctx: CommandContext): Promise<void> {
  return withScheduler(ctx, async (scheduler) => {
    const schedules = await scheduler.list(ctx.chat);
    if (schedules.length === 0) return 'No schedules in this chat. /schedule <when> <prompt> makes one.';
    const zone = await scheduler.timezone(ctx.chat);
    const lines = schedules.map((s) => {
      const prompt = s.prompt.length > 80 ? `${s.prompt.slice(0, 79)}…` : s.prompt;
      return `${s.id} - next ${scheduler.describe(s.nextRunAt, zone)} (${s.label}) by ${s.makerName}: ${prompt}`;
    });
    return ['Schedules:', ...lines].join('\n');
  });
}

/** `/unschedule <id>`: its maker or an admin. */
export function runUnschedule(ctx: CommandContext, args: string): Promise<void> {
  return withScheduler(ctx, async (scheduler) => {
    if (!args) return 'Usage: /unschedule <id> (/schedules lists the ids).';
    return scheduler.remove(ctx.chat, args, ctx.user, ctx.access.isAdmin(ctx.user));
  });
}

/** `/timezone [IANA name]`: shows or sets the chat's zone. */
export function runTimezone(ctx: CommandContext, args: string): Promise<void> {
  return withScheduler(ctx, async (scheduler) => {
    if (!args)
      return `This chat's time zone is ${await scheduler.timezone(ctx.chat)}. Usage: /timezone <IANA name>, e.g. /timezone Europe/Berlin`;
    await scheduler.setTimezone(ctx.chat, args);
    return `Time zone is now ${args}; new schedules here use it.`;
  });
}

const BUSY_HELP: Record<(typeof BUSY_MODES)[number], string> = {
  steer: 'messages sent while a reply runs join it at its next step',
  queue: 'messages sent while a reply runs wait for their own reply',
  interrupt: 'a message sent while a reply runs stops it and is answered instead',
};

/** `/busy [steer|queue|interrupt]`: shows or sets the chat's busy mode. */
export function runBusy(ctx: CommandContext, args: string): Promise<void> {
  return withScheduler(ctx, async (scheduler) => {
    const usage = `Usage: /busy <${BUSY_MODES.join('|')}>`;
    if (!args) {
      const mode = await scheduler.busyMode(ctx.chat);
      return `Busy mode here is ${mode}: ${BUSY_HELP[mode]}. ${usage}`;
    }
    const mode = BUSY_MODES.find((m) => m === args.toLowerCase());
    if (!mode) return `"${args.slice(0, 40)}" is not a busy mode. ${usage}`;
    await scheduler.setBusyMode(ctx.chat, mode);
    return `Busy mode is now ${mode}: ${BUSY_HELP[mode]}.`;
  });
}
