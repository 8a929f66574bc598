/**
 * Commands typed as text. Teams has no slash commands for bots: the app
 * manifest's `commandLists` only suggest words in the compose box, and a
 * picked word is sent as the message text. So `/status`, `!status` and a
 * catalogue word on its own (`status`, what the suggestion inserts) are
 * commands; a bare word followed by more text is one only for the commands
 * whose argument reads naturally (`compact keep the names`), so a sentence
 * like "help me with this" stays a message.
 */
import { COMMAND_CATALOGUE } from '../../src/bot/adapter-contract.js';

const KNOWN = new Set(COMMAND_CATALOGUE.map((c) => c.name));
const BARE_WITH_ARGS = new Set(['compact', 'rename', 'mode']);

/** A command typed as text. */
export interface TextCommand {
  name: string;
  args: string;
}

/** The command in a message's text, or undefined for an ordinary message. */
export function parseTextCommand(text: string): TextCommand | undefined {
  const match = /^([!/]?)([A-Za-z]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return undefined;
  const prefixed = match[1] !== '';
  const name = (match[2] ?? '').toLowerCase();
  const args = (match[3] ?? '').trim();
  if (!KNOWN.has(name)) return undefined;
  if (!prefixed && args && !BARE_WITH_ARGS.has(name)) return undefined;
  return { name, args };
}
