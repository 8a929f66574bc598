/**
 * The application commands switchboard registers, and how an invocation
 * becomes the core's command words (`/compact keep names` -> `compact`,
 * `keep names`). Registered by bulk overwrite at start-up, so renaming or
 * removing one here is reflected on the next start.
 */
import type { ChatInputCommandInteraction } from 'discord.js';

const STRING = 3;

interface OptionSpec {
  type: number;
  name: string;
  description: string;
  required?: boolean;
  max_length?: number;
  choices?: { name: string; value: string }[];
}

/** A chat input command in the v10 JSON shape. */
export interface CommandSpec {
  type: 1;
  name: string;
  description: string;
  options?: OptionSpec[];
  /** 0 guild, 1 bot DM: the bot's DMs are sessions too. */
  contexts: number[];
}

const MODES = ['plan', 'default', 'acceptEdits', 'bypassPermissions'];

function command(name: string, description: string, options?: OptionSpec[]): CommandSpec {
  return { type: 1, name, description, ...(options ? { options } : {}), contexts: [0, 1] };
}

function text(name: string, description: string, required: boolean): OptionSpec {
  return { type: STRING, name, description, required, max_length: 1900 };
}

/** Every command, in the order Discord shows them. */
export const COMMANDS: readonly CommandSpec[] = [
  command('ask', 'Ask the agent; in a channel this opens a thread for the conversation', [
    text('prompt', 'What to ask', true),
  ]),
  command('new', 'Start a fresh session in this thread'),
  command('compact', 'Summarise the conversation to free context', [
    text('focus', 'What the summary should keep', false),
  ]),
  command('rename', 'Rename this session', [text('name', 'New session name', true)]),
  command('stop', 'Stop the running reply and drop queued messages'),
  command('status', 'Context use, model, mode and session of this thread'),
  command('sessions', 'List your sessions'),
  command('resume', 'Resume an earlier session here', [text('session', 'Session name or id', true)]),
  command('fork', 'Copy this session into a new one'),
  command('mode', 'Set the permission mode', [
    {
      type: STRING,
      name: 'mode',
      description: 'Permission mode',
      required: true,
      choices: MODES.map((m) => ({ name: m, value: m })),
    },
  ]),
  command('help', 'What switchboard can do'),
];

/** The option that carries each command's argument text. */
const ARGUMENT: Record<string, string> = {
  ask: 'prompt',
  compact: 'focus',
  rename: 'name',
  resume: 'session',
  mode: 'mode',
};

/** Commands whose answer only the person who ran them needs to see. */
export const PRIVATE_ANSWERS = new Set(['help', 'sessions']);

/** The core's name and argument text of an invocation. */
export function commandWords(interaction: ChatInputCommandInteraction): { name: string; args: string } {
  const option = ARGUMENT[interaction.commandName];
  const args = option ? (interaction.options.getString(option) ?? '') : '';
  return { name: interaction.commandName, args: args.trim() };
}
