/**
 * The command catalogue: every command the bot knows, with the words /help
 * shows and the argument each platform's registration describes. Adapters
 * read it through the adapter contract (`adapter-contract.ts` re-exports it).
 */
import { BUSY_MODES } from '../schedule/types.js';
import { PERMISSION_MODES } from '../vocabulary.js';

/** The argument a command takes, as a platform's command registration describes it. */
export interface CommandArgument {
  /** Option name where the platform names arguments (Discord). */
  name: string;
  description: string;
  required: boolean;
  /** The only values accepted, where there is a fixed set. */
  choices?: readonly string[];
}

/** One entry of the command catalogue. */
export interface CommandInfo {
  /** The word people type, the same on every platform (`compact`). */
  name: string;
  /** How /help shows it (`/compact [focus]`). */
  usage: string;
  /** What it does, in a few words; adapters use it as the registration's description. */
  help: string;
  argument?: CommandArgument;
}

/**
 * The bot's commands, in the order /help lists them: the one list every
 * adapter builds its registration from (Telegram's setMyCommands, Discord's
 * application commands, Slack's command words), so a command added here
 * appears everywhere and nowhere is a copy to forget.
 */
export const COMMAND_CATALOGUE: readonly CommandInfo[] = [
  { name: 'new', usage: '/new', help: 'start a fresh session in this chat' },
  {
    name: 'compact',
    usage: '/compact [focus]',
    help: 'summarize the conversation to free context (optionally say what to keep)',
    argument: { name: 'focus', description: 'What the summary should keep', required: false },
  },
  {
    name: 'rename',
    usage: '/rename <name>',
    help: 'name this session',
    argument: { name: 'name', description: 'New session name', required: true },
  },
  { name: 'stop', usage: '/stop', help: 'stop the current reply and drop queued messages' },
  { name: 'status', usage: '/status', help: 'context used, model, permission mode, session name and id' },
  {
    name: 'cost',
    usage: '/cost',
    help: "tokens and cost of this session (admins: the bot's totals per day)",
  },
  {
    name: 'budget',
    usage: '/budget [chat <dollars>|chat off]',
    help: "spending caps, what is spent and when they reset (admins: set this chat's daily cap)",
    argument: { name: 'set', description: 'chat <dollars> or chat off (admins)', required: false },
  },
  {
    name: 'rules',
    usage: '/rules [revoke <id>]',
    help: 'what runs here without asking: stored rules and session grants (revoke one by id)',
    argument: { name: 'revoke', description: 'revoke <id>', required: false },
  },
  { name: 'tools', usage: '/tools', help: "the agent's tools, by MCP server" },
  {
    name: 'mcp',
    usage: '/mcp prompts | /mcp run <server> <prompt> [args] | /mcp login|logout <server>',
    help: "the MCP servers' prompts; run one as your message; sign in to a server (admins)",
    argument: {
      name: 'what',
      description: 'prompts, run <server> <prompt> [name=value…], login <server> or logout <server>',
      required: true,
    },
  },
  { name: 'sessions', usage: '/sessions', help: 'list your sessions' },
  {
    name: 'resume',
    usage: '/resume <name|id>',
    help: 'continue a saved session here (also one from another platform)',
    argument: { name: 'session', description: 'Session name or id', required: true },
  },
  { name: 'fork', usage: '/fork', help: 'copy this session and continue the copy here' },
  {
    name: 'mode',
    usage: `/mode <${PERMISSION_MODES.join('|')}>`,
    help: 'how freely tools may run (bypassPermissions: admins only)',
    argument: { name: 'mode', description: 'Permission mode', required: true, choices: PERMISSION_MODES },
  },
  {
    name: 'schedule',
    usage: '/schedule <when> <prompt>',
    help: 'run a prompt later or again and again (in 10m, every 2h, daily 09:00, weekdays 09:00, "cron")',
    argument: {
      name: 'when_and_prompt',
      description: 'When, then the prompt: daily 09:00 check the build',
      required: true,
    },
  },
  { name: 'schedules', usage: '/schedules', help: "this chat's schedules" },
  {
    name: 'unschedule',
    usage: '/unschedule <id>',
    help: 'remove a schedule (its maker or an admin)',
    argument: { name: 'id', description: 'Schedule id from /schedules', required: true },
  },
  {
    name: 'timezone',
    usage: '/timezone [IANA name]',
    help: "show or set this chat's time zone for schedules",
    argument: { name: 'zone', description: 'IANA time zone, e.g. Europe/Berlin', required: false },
  },
  {
    name: 'btw',
    usage: '/btw <question>',
    help: 'ask something on the side, answered at once and kept out of the conversation',
    argument: { name: 'question', description: 'The side question', required: true },
  },
  {
    name: 'bg',
    usage: '/bg <prompt>',
    help: 'run a prompt in a new session in the background; its result is posted here when done',
    argument: { name: 'prompt', description: 'What to do in the background', required: true },
  },
  {
    name: 'busy',
    usage: `/busy [${BUSY_MODES.join('|')}]`,
    help: 'what a message sent while a reply runs does: join it, wait, or stop it',
    argument: { name: 'mode', description: 'Busy mode', required: false, choices: BUSY_MODES },
  },
  {
    name: 'web',
    usage: '/web <on|off>',
    help: 'let the agent search and read the web in this chat, or not (admins only)',
    argument: { name: 'state', description: 'on or off', required: true, choices: ['on', 'off'] },
  },
  { name: 'help', usage: '/help', help: 'this list' },
];

/** A command typed as text: its catalogue word and what followed it. */
export interface TextCommand {
  name: string;
  args: string;
}

const KNOWN = new Set(COMMAND_CATALOGUE.map((c) => c.name));

/**
 * Commands whose bare word may carry arguments as plain text
 * (`compact keep names`). Others need `!` or `/` before arguments, so an
 * ordinary sentence like "help me with this" stays a message.
 */
const BARE_WITH_ARGS = new Set(['compact', 'rename', 'mode']);

/**
 * The command in a message's text, or undefined for an ordinary message:
 * `/status`, `!status`, a catalogue word on its own, or a bare word with an
 * argument for the commands in {@link BARE_WITH_ARGS}. For platforms where
 * commands arrive as text (a thread on Slack, any chat on Teams), so each
 * reads them alike.
 */
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
