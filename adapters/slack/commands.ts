/**
 * Bot commands on Slack. Slack reserves some slash command names (`/status`
 * among them) and rejects a manifest that declares one, so the app declares
 * one command, `/switchboard`, whose first word is the bot command. In a
 * thread the same words work as text: `compact keep names`, `!compact`.
 */
import { COMMAND_CATALOGUE, type TextCommand } from '../../src/bot/adapter-contract.js';

/** The bot core's commands (the same words on every platform). */
export const BOT_COMMANDS: readonly string[] = COMMAND_CATALOGUE.map((c) => c.name);

const KNOWN = new Set<string>(BOT_COMMANDS);

/** `/switchboard compact keep names` text -> `{ name: 'compact', args: 'keep names' }`; empty -> help. */
export function parseSlashText(text: string): TextCommand {
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

/** The help line for an unknown `/switchboard` word. */
export function slashUsage(commandName: string, word: string): string {
  return (
    `Unknown command "${word}". Use ${commandName} <command> [arguments], where command is one of: ` +
    `${BOT_COMMANDS.join(', ')}. In a thread you can also type them as text, e.g. \`compact\` or \`!status\`.`
  );
}
