/**
 * Bot commands on Slack. Slack reserves some slash command names (`/status`
 * among them) and rejects a manifest that declares one, so the app declares
 * one command, `/switchboard`, whose first word is the bot command. In a
 * thread the same words work as text: `compact keep names`, `!compact`.
 */
import { COMMAND_CATALOGUE } from '../../src/bot/adapter-contract.js';

/** The bot core's commands (the same words on every platform). */
export const BOT_COMMANDS: readonly string[] = COMMAND_CATALOGUE.map((c) => c.name);

const KNOWN = new Set<string>(BOT_COMMANDS);

/**
 * Commands whose bare word may carry arguments as plain text
 * (`compact keep names`). Others need `!` or `/` before arguments, so an
 * ordinary sentence like "help me with this" stays a message.
 */
const BARE_WITH_ARGS = new Set(['compact', 'rename', 'mode']);

/** A parsed command. */
export interface ParsedCommand {
  name: string;
  args: string;
}

/** `/switchboard compact keep names` text -> `{ name: 'compact', args: 'keep names' }`; empty -> help. */
export function parseSlashText(text: string): ParsedCommand {
  const trimmed = text.trim();
  if (!trimmed) return { name: 'help', args: '' };
  const match = /^(\S+)\s*([\s\S]*)$/.exec(trimmed);
  const word = (match?.[1] ?? '').replace(/^[!/]/, '').toLowerCase();
  return { name: word, args: (match?.[2] ?? '').trim() };
}

/** True when `name` is one of the bot's commands. */
export function isBotCommand(name: string): boolean {
  return KNOWN.has(name);
}

/** A command typed as text in a thread, or undefined for an ordinary message. */
export function parseTextCommand(text: string): ParsedCommand | undefined {
  const match = /^([!/]?)([A-Za-z]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return undefined;
  const prefixed = match[1] !== '';
  const name = (match[2] ?? '').toLowerCase();
  const args = (match[3] ?? '').trim();
  if (!KNOWN.has(name)) return undefined;
  if (!prefixed && args && !BARE_WITH_ARGS.has(name)) return undefined;
  return { name, args };
}

/** The help line for an unknown `/switchboard` word. */
export function slashUsage(commandName: string, word: string): string {
  return (
    `Unknown command "${word}". Use ${commandName} <command> [arguments], where command is one of: ` +
    `${BOT_COMMANDS.join(', ')}. In a thread you can also type them as text, e.g. \`compact\` or \`!status\`.`
  );
}
