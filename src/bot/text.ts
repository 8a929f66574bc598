/**
 * Every sentence the bot core says to people, in one place, so wording stays
 * consistent across platforms and tests can match it exactly. `say` is this
 * catalogue of words only; what sends a line to a chat is called `tell`
 * (`ctx.tell(say.expired)`: tell the chat what to say).
 */
import type { ContextWindowState } from '../vocabulary.js';
import type { Attachment } from './adapter-contract.js';
import { markdownLiteral } from './format/index.js';

/** Longest user message the core hands to a session, in characters. */
export const MAX_INPUT_CHARS = 32_000;

const fmt = (n: number) => n.toLocaleString('en-US');

/** A byte count as people say it: `20 MB`, `0.5 MB`. */
function megabytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return `${Number.isInteger(mb) ? mb : mb.toFixed(mb < 1 ? 2 : 1)} MB`;
}

/** A length of time as people say it: `45 seconds`, `10 minutes`, `1 minute 1 second`. */
export function duration(seconds: number): string {
  const whole = Math.round(seconds);
  if (whole < 60) return plural(whole, 'second');
  const rest = whole % 60;
  return `${plural(Math.floor(whole / 60), 'minute')}${rest ? ` ${plural(rest, 'second')}` : ''}`;
}

/** `1 message`, `2 messages`: a count with its noun in agreement. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${fmt(n)} ${n === 1 ? one : many}`;
}

/**
 * A name only the bot's operator can act on: a setting (`SWITCHBOARD_*`, the
 * model provider's and the database's variables, any `*_TOKEN`, `*_KEY`,
 * `*_SECRET`, `*_PASSWORD`) or the `.env` file. People in a chat cannot
 * change these; shown to them they are noise at best and a map of the
 * deployment at worst. A platform's variables (`<PLATFORM>_API_URL`,
 * `_WEBHOOK_PORT`, `_GUILD_ID`…) are known by how settings end, so a new
 * platform's are covered without being named here.
 */
export const OPERATOR_DETAIL =
  /\b(?:SWITCHBOARD|ANTHROPIC|POSTGRES|PG|MCP)_[A-Z0-9_]+\b|\b[A-Z][A-Z0-9_]*_(?:TOKEN|KEY|SECRET|PASSWORD)S?\b|\b[A-Z][A-Z0-9]*_(?:[A-Z0-9]+_)*(?:URL|ROOT|PORT|ID|COMMAND|SHARDS|DELAY)\b|(?:^|[\s(`"'])\.env\b/;

/** True when `text` names a setting or the `.env` file (see {@link OPERATOR_DETAIL}). */
export function namesOperatorDetail(text: string): boolean {
  return OPERATOR_DETAIL.test(text);
}

/** What each kind of name is, in words a chat user can read; the first that matches wins. */
const NAMED_AS: ReadonlyArray<[RegExp, string]> = [
  [/\b[A-Z][A-Z0-9_]*_KEYS?(?:=\S*)?\b/g, "the bot's API key"],
  [/\b[A-Z][A-Z0-9_]*_TOKENS?(?:=\S*)?\b/g, "the bot's token"],
  [/\b[A-Z][A-Z0-9_]*_(?:SECRET|PASSWORD)S?(?:=\S*)?\b/g, "the bot's secret"],
  [/\b[A-Z][A-Z0-9]*_[A-Z0-9_]+(?:=[^\s);,]*)?/g, 'a setting'],
  [/\.env\b/g, "the bot's settings"],
];

/**
 * `text` as a chat user (not an operator) may read it. The bot's messages
 * state the problem first and the fix after (`ANTHROPIC_API_KEY was
 * rejected (401): check the key in .env`), and a fix that names a setting is
 * one only the operator can apply: on each line that names one, the first
 * clause (the problem) stays with each name said as what it is ("the bot's
 * API key"), every later clause from the first that names a setting is left
 * out, and the operator is pointed to instead. Clauses end at `. `, `; ` and
 * `: `.
 *
 * @example
 * withoutOperatorDetail('Could not reach the API. Check ANTHROPIC_BASE_URL.');
 * // 'Could not reach the API. (The bot's operator can see why in its log.)'
 */
export function withoutOperatorDetail(text: string): string {
  if (!namesOperatorDetail(text)) return text;
  const lines = text.split('\n').map((line) => {
    if (!namesOperatorDetail(line)) return line;
    const clauses = line.split(/(?<=[.;:])\s+/);
    // A label ("Sandbox:") is not the problem yet: it belongs with the clause it introduces.
    while (clauses.length > 1 && /^\S+(?: \S+)?:$/.test(clauses[0] ?? '')) {
      clauses.splice(0, 2, `${clauses[0]} ${clauses[1]}`);
    }
    const [problem = '', ...rest] = clauses;
    const kept = [NAMED_AS.reduce((clause, [name, words]) => clause.replace(name, words), problem)];
    for (const clause of rest) {
      if (namesOperatorDetail(clause)) break;
      kept.push(clause);
    }
    const head = kept.join(' ').replace(/[;:,]?$/, (end) => (/[.!?]$/.test(kept.join(' ')) ? end : '.'));
    // A sentence that now starts with "the bot's" starts with a capital.
    return `${head.replace(/^([^\p{L}]*)t(?=he bot's)/u, '$1T')} ${say.askOperator}`;
  });
  return lines.join('\n');
}

/** User-facing strings of the bot core. */
export const say = {
  noAllowlist: (userKey: string) =>
    `Your id is ${userKey}. This bot has no allowed users yet, so it runs nothing: ` +
    `set SWITCHBOARD_ALLOWED_USERS=${userKey} (comma-separated for several people) and restart it.`,
  notAllowed: (userKey: string) => `Sorry, you are not allowed to use this bot (your id is ${userKey}).`,
  tooLong: (length: number) =>
    `That message is ${fmt(length)} characters; the limit is ${fmt(MAX_INPUT_CHARS)}. Please shorten it or send it in parts.`,
  queueFull: (limit: number) =>
    `The queue is full (${plural(limit, 'message')} ${limit === 1 ? 'is' : 'are'} waiting); send this again once the current replies are done, or /stop them.`,
  unreadable: (attachments: readonly Attachment[]) =>
    `I can't read ${describeKinds(attachments)} yet; please send text.`,
  /** A file over the download limit; `ran`: the message's text went on without it. */
  fileTooLarge: (name: string, limitBytes: number, ran: boolean) =>
    `⚠️ ${name} is larger than ${megabytes(limitBytes)}, the most I take, so I left it out${ran ? ' and answered your text without it' : ''}. Send a smaller file, or split it.`,
  /** A file whose download failed (stalled, refused, cut). */
  fileFailed: (name: string, ran: boolean) =>
    `⚠️ I couldn't download ${name}, so I left it out${ran ? ' and answered your text without it' : ''}. Please send it again.`,
  /** Added to the unreadable line for an admin when voice notes are not transcribed: how to turn it on. */
  transcribeHint:
    ' (Admin: set SWITCHBOARD_TRANSCRIBE_URL and SWITCHBOARD_TRANSCRIBE_MODEL to have voice notes transcribed.)',
  /** What the bot heard in a voice note, shown before the reply. Plain text: the quote is the person's words. */
  heard: (transcript: string) => `🎙 "${transcript}"`,
  /** A voice note longer than the limit; it was not downloaded. */
  voiceTooLong: (seconds: number, maxSeconds: number, ran: boolean) =>
    `⚠️ That voice note is ${duration(seconds)} long; I transcribe up to ${duration(maxSeconds)}, so I left it out${ran ? ' and answered your text without it' : ''}. Please send a shorter one, or type it.`,
  /** The transcription heard no words. */
  voiceEmpty: (ran: boolean) =>
    `🎙 I couldn't hear any words in that voice note${ran ? ', so I answered your text alone' : ''}. Please send it again, or type it.`,
  /** The transcription failed; `reason` is the transcription client's one line. */
  voiceFailed: (reason: string, ran: boolean) =>
    `⚠️ I couldn't transcribe that voice note: ${reason.replace(/[.\s]+$/, '')}${ran ? '. I answered your text without it' : ''}. Please send it again, or type it.`,
  /** One line, whatever the error's message looks like. */
  turnError: (message: string) => {
    const line = message.replace(/\s+/g, ' ').trim() || 'Something went wrong.';
    // A long message is shortened in the middle: the API's request-id at its end is what support asks for.
    const request = / \(request req_[A-Za-z0-9_-]+\)$/.exec(line)?.[0] ?? '';
    const body = line.slice(0, line.length - request.length);
    return `⚠️ ${body.length > 400 ? `${body.slice(0, 400)}…` : body}${request}`;
  },
  stoppedNote: '⏹ stopped',
  stopped: (dropped: number, running: boolean) => {
    const parts = [running ? '⏹ Stopped the current reply.' : '⏹ Nothing was running.'];
    if (dropped > 0) parts.push(`Dropped ${plural(dropped, 'queued message')}.`);
    return parts.join(' ');
  },
  nothingToStop: 'Nothing to stop.',
  /** What replaces an operator detail for chat users. */
  askOperator: "(The bot's operator can see why in its log.)",
  stopping: 'Stopping.',
  alreadyFinished: 'That reply has already finished.',
  shuttingDown: 'Bot is shutting down; reply stopped.',
  alreadyHandled: 'Already handled.',
  crashNotice:
    '⚠️ The bot restarted while answering; that reply was cut off. Send your message again to continue.',
  corruptSession: (id: string, status: string, reason: string) =>
    `⚠️ This chat's session ${id} could not be read (${status}${reason ? `: ${reason}` : ''}). ` +
    'Its files were moved aside intact; starting a fresh session.',
  /** A session as people read it: its name, or that it has none, then its id. */
  sessionLabel: (name: string | undefined, id: string) =>
    name ? `"${name}" (${id})` : `an unnamed session (${id})`,
  /** /status's first line. */
  sessionLine: (name: string | undefined, id: string) =>
    name ? `Session: "${name}" (${id})` : `Session: unnamed, id ${id} (name it with /rename)`,
  /** A /sessions entry's name. */
  listedName: (name: string | undefined) => name ?? 'unnamed',
  alreadyOn: (name: string | undefined, id: string) =>
    `This chat is already on ${say.sessionLabel(name, id)}.`,
  resumed: (name: string | undefined, id: string, messages: number, updated: string) =>
    `Resumed ${say.sessionLabel(name, id)}: ${plural(messages, 'message')}, last updated ${updated}.`,
  /**
   * A share of the context window with the precision it needs: `0.04%`,
   * `0.2%`, `12.5%`, `83%` (two significant figures under 10%).
   */
  percent: (n: number) => {
    if (n === 0) return '0%';
    if (n >= 10) return `${n.toFixed(n >= 100 ? 0 : 1).replace(/\.0$/, '')}%`;
    return `${Number(n.toPrecision(2))}%`;
  },
  /** `/compact`'s answer: the context before and after, in tokens and as a share of the window. */
  compacted: (
    before: Pick<ContextWindowState, 'usedTokens' | 'usedPercentage'>,
    after: Pick<ContextWindowState, 'usedTokens' | 'usedPercentage'>,
  ) => {
    const share = (s: Pick<ContextWindowState, 'usedPercentage'>) =>
      `${say.percent(s.usedPercentage)} of the window`;
    if (after.usedTokens >= before.usedTokens) {
      return (
        `Compacted: the history is now one summary, ${plural(after.usedTokens, 'token')} (${share(after)}); ` +
        'it was already about that small, so nothing was saved.'
      );
    }
    return (
      `Compacted: the history is now one summary; context ${fmt(before.usedTokens)} → ` +
      `${plural(after.usedTokens, 'token')} (${say.percent(before.usedPercentage)} → ${share(after)}).`
    );
  },
  /** The terminal's line after each reply: `◔ 12% of the context used (24,600 of 200,000 tokens)`. */
  replyFooter: (
    state: Pick<ContextWindowState, 'usedTokens' | 'maxTokens' | 'usedPercentage'>,
    cost?: string,
  ) =>
    `◔ ${state.usedPercentage >= 10 ? `${Math.round(state.usedPercentage)}%` : say.percent(state.usedPercentage)} of the context used (${fmt(state.usedTokens)} of ${plural(state.maxTokens, 'token')})${cost ? ` · ${cost} so far` : ''}`,
  approvalOnlyFor: (name: string) => `Only ${name} or an admin can answer this.`,
  approvalNotSelf: 'Commands need a second person here: an admin or an approver can answer this.',
  expired: 'This request has expired; please ask again.',
  // Names are people's own text inside a Markdown message: quoted literally.
  allowed: (name: string) => `✅ Allowed by ${markdownLiteral(name)}`,
  allowedSession: (name: string) => `✅ Allowed for this session by ${markdownLiteral(name)}`,
  denied: (name: string) => `🚫 Denied by ${markdownLiteral(name)}`,
  deniedTimeout: '🚫 Denied (timed out)',
  deniedStopped: '🚫 Denied (reply stopped)',
  answered: { allow: 'Allowed.', 'allow-session': 'Allowed for this session.', deny: 'Denied.' },
  waitForReply: (command: string) =>
    `/${command} has to wait: a reply is running. Wait for the current reply or /stop it.`,
  unknownCommand: (name: string) => `Unknown command /${name}. Try /help.`,
  replicaSilent: 'The replica running this reply did not answer in time; press the button again in a moment.',
  approvalExpired:
    '🔐 This request has expired: the reply it belonged to was cut off. Ask again to continue.',
  replicaCut:
    '⚠️ The bot process answering here stopped responding, so that reply was cut off. Send your message again to continue.',
  leaseWaitExpired:
    '⚠️ Another replica was still answering in this chat for too long; send your message again.',
  /** The 80% line, once per cap and period: `⚠️ 80% of your daily budget ($4.01 of $5.00) is used.` */
  budgetWarning: (kind: BudgetKind, spent: string, limit: string) =>
    `⚠️ 80% of ${BUDGET_NAMES[kind]} (${spent} of ${limit}) is used.`,
  /** A reached cap: nothing run (a new message) or a reply paused before its next model request. */
  budgetReached: (
    kind: BudgetKind,
    limit: string,
    spent: string,
    resetsAt: string,
    paused: boolean,
    offer: string | undefined,
  ) => {
    const name = BUDGET_NAMES[kind];
    const head = `🛑 ${name[0]?.toUpperCase()}${name.slice(1)} (${limit}) is used up (${spent} spent), so ${
      paused ? 'this reply paused before its next model request' : 'nothing was run'
    }. It resets at ${resetsAt} UTC.`;
    if (offer === undefined) return `${head} It was already extended once in this period.`;
    return `${head} An admin can allow ${offer} more${paused ? ' to let the reply go on' : '; then send your message again'}.`;
  },
  budgetStopped:
    'The reply stopped here: its budget was not extended in time. Send a message to go on once the budget resets or an admin allows more.',
  budgetAdminOnly: 'Only an admin can allow more spending.',
  budgetAlreadyReset: 'That budget has reset since; there is nothing to allow.',
  budgetAlreadyExtended: 'That budget was already extended once in this period.',
  budgetExtendedAnswer: (amount: string) => `Allowed ${amount} more.`,
  budgetExtended: (amount: string, name: string) => `✅ ${amount} more allowed by ${markdownLiteral(name)}`,
  ruleAdminOnly: 'Only an admin can make a rule.',
  rulePrefixChoose: 'Choose which commands the rule allows (the message below).',
  rulePrefixAsk: '📌 Always allow, in this chat, Bash commands that start with:',
  rulePrefixCancelled: 'No rule made; the request still waits for an answer.',
  rulePrefixStored: (id: string, prefix: string) =>
    `📌 Rule ${id}: Bash commands that start with ${prefix} run without asking in this chat.`,
  ruleStored: (id: string) => `Allowed; rule ${id} is stored for this chat.`,
  alwaysAllowed: (name: string, id: string) => `✅ Always allowed by ${markdownLiteral(name)} (rule ${id})`,
  /** Added to a tool's status line when a stored rule let it run unasked. */
  ruleAllowedNote: (id: string) => ` · allowed by rule ${id}`,
  leaseLost:
    '⚠️ stopped: this bot process stalled past its lease on the chat; send your message again to continue',
  /** The line that introduces a scheduled run. */
  scheduledRun: (prompt: string) => `⏰ Scheduled: ${prompt}`,
  unattendedDenied: (tool: string) =>
    `🚫 ${tool} was denied: scheduled runs in this bot do not ask for approvals.`,
  steered: '↪ Added to the current reply.',
  interruptedNote: '⏹ stopped for a newer message',
  noSchedules: 'Schedules are not set up in this bot.',
} as const;

/** Which budget a line is about (the same words as `CapKind` in budgets.ts). */
type BudgetKind = 'user-day' | 'chat-day' | 'month';

const BUDGET_NAMES: Record<BudgetKind, string> = {
  'user-day': 'your daily budget',
  'chat-day': "this chat's daily budget",
  month: "the bot's monthly budget",
};

const KIND_NAMES: Record<NonNullable<Attachment['kind']>, string> = {
  audio: 'voice messages',
  video: 'videos',
  document: 'files',
  sticker: 'stickers',
  image: 'images',
  other: 'attachments',
};

function describeKinds(attachments: readonly Attachment[]): string {
  const names = [...new Set(attachments.map((a) => KIND_NAMES[a.kind ?? 'document']))];
  if (names.length <= 1) return names[0] ?? 'attachments';
  return `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}
