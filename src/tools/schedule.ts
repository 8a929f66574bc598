/**
 * Schedule: the agent makes a schedule in the chat the turn answers, as the
 * person it answers would with /schedule, so "remind me every weekday at
 * nine" works in plain words. A modify-class tool: in `default` mode the
 * person approves each schedule before it exists.
 */
import { z } from 'zod';
import { defineTool, oneLine, stringField, toolError } from './define.js';
import type { Tool } from './types.js';

const schema = z
  .object({
    when: z
      .string()
      .min(1)
      .max(100)
      .describe(
        'When to run, in one of these forms: "in 10m" (s, m, h or d), "every 2h", "daily 09:00", ' +
          '"weekdays 09:00", or a five-field cron expression in double quotes such as "\\"0 9 * * 1-5\\"". ' +
          "Times are in the chat's time zone.",
      ),
    prompt: z
      .string()
      .min(1)
      .max(4_000)
      .describe('What to do at each run, written as the person would ask it ("check the build and report").'),
  })
  .strict();

/** Builds the Schedule tool. */
export function createScheduleTool(): Tool {
  return defineTool({
    name: 'Schedule',
    description:
      'Schedules a prompt to run later in this chat, once or again and again (a reminder, a daily check). ' +
      'Each run is a turn of this conversation, posted in the chat. Use it when asked to do something at a ' +
      'time or regularly; /schedules lists schedules and /unschedule removes one.',
    toolClass: 'modify',
    schema,
    subject: (input) =>
      `${stringField(input, 'when') ?? '?'}: ${oneLine(stringField(input, 'prompt') ?? '', 60)}`,
    scopeKey: (input) => stringField(input, 'when') ?? '*',
    async run(input, context) {
      const schedules = context.schedules;
      if (!schedules) return toolError('Schedule works only in a chat that keeps schedules; none is here.');
      try {
        return { content: await schedules.create(input.when, input.prompt) };
      } catch (err) {
        return toolError(err instanceof Error ? err.message : String(err));
      }
    },
  });
}
