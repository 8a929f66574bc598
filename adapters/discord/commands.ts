/**
 * The application commands switchboard registers, and how an invocation
 * becomes the core's command words (`/compact keep names` -> `compact`,
 * `keep names`). Registered by bulk overwrite at start-up, so renaming or
 * removing one here is reflected on the next start.
 */
import type { ChatInputCommandInteraction } from 'discord.js';
import { COMMAND_CATALOGUE, type CommandArgument } from '../../src/bot/adapter-contract.js';

const STRING = 3;

interface OptionSpec {
  type: number;
  name: string;
  description: string;
  required?: boolean;
  max_length?: number;
  choices?: { name: string; value: string }[];
}

/** A chat input application command in the v10 JSON shape (what Discord registers, not the core's catalogue entry). */
export interface ApplicationCommandJson {
  type: 1;
  name: string;
  description: string;
  options?: OptionSpec[];
  /** 0 guild, 1 bot DM: the bot's DMs are sessions too. */
  contexts: number[];
}

/** Discord caps a command's description at 100 characters. */
const DESCRIPTION_MAX = 100;

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

function command(name: string, description: string, options?: OptionSpec[]): ApplicationCommandJson {
  const shown = capitalise(description).slice(0, DESCRIPTION_MAX);
  return { type: 1, name, description: shown, ...(options ? { options } : {}), contexts: [0, 1] };
}

function option(argument: CommandArgument): OptionSpec {
  return {
    type: STRING,
    name: argument.name,
    description: argument.description,
    required: argument.required,
    ...(argument.choices
      ? { choices: argument.choices.map((value) => ({ name: value, value })) }
      : { max_length: 1900 }),
  };
}

/**
 * Every command, in the order Discord shows them: `/ask` (Discord's way to
 * open a thread) and then the core's catalogue, each argument as an option.
 */
export const COMMANDS: readonly ApplicationCommandJson[] = [
  command('ask', 'Ask the agent; in a channel this opens a thread for the conversation', [
    option({ name: 'prompt', description: 'What to ask', required: true }),
  ]),
  ...COMMAND_CATALOGUE.map((c) => command(c.name, c.help, c.argument ? [option(c.argument)] : undefined)),
];

/** The option that carries each command's argument text. */
const ARGUMENT: Record<string, string> = Object.fromEntries([
  ['ask', 'prompt'],
  ...COMMAND_CATALOGUE.flatMap((c) => (c.argument ? [[c.name, c.argument.name]] : [])),
]);

/** Commands whose answer only the person who ran them needs to see. */
export const PRIVATE_ANSWERS = new Set(['help', 'sessions']);

/** The core's name and argument text of an invocation. */
export function commandWords(interaction: ChatInputCommandInteraction): { name: string; args: string } {
  const option = ARGUMENT[interaction.commandName];
  const args = option ? (interaction.options.getString(option) ?? '') : '';
  return { name: interaction.commandName, args: args.trim() };
}
