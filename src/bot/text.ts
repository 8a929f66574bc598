/**
 * Every sentence the bot core says to people, in one place, so wording stays
 * consistent across platforms and tests can match it exactly.
 */
import type { PermissionRequest, ToolClass } from '../session/types.js';
import type { Attachment } from './adapter-contract.js';

/** Longest user message the core hands to a session, in characters. */
export const MAX_INPUT_CHARS = 32_000;

const fmt = (n: number) => n.toLocaleString('en-US');
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** User-facing strings of the bot core. */
export const say = {
  noAllowlist: (userKey: string) =>
    `Your id is ${userKey}. This bot has no allowed users yet, so it runs nothing: ` +
    `set SWITCHBOARD_ALLOWED_USERS=${userKey} (comma-separated for several people) and restart it.`,
  notAllowed: (userKey: string) => `Sorry, you are not allowed to use this bot (your id is ${userKey}).`,
  tooLong: (length: number) =>
    `That message is ${fmt(length)} characters; the limit is ${fmt(MAX_INPUT_CHARS)}. Please shorten it or send it in parts.`,
  queueFull: (limit: number) =>
    `The queue is full (${limit} messages are waiting); send this again once the current replies are done, or /stop them.`,
  unreadable: (attachments: readonly Attachment[]) =>
    `I can't read ${describeKinds(attachments)} yet; please send text.`,
  imageMissing: "I couldn't download that image; please send it again.",
  /** One line, whatever the error's message looks like. */
  turnError: (message: string) => {
    const line = message.replace(/\s+/g, ' ').trim() || 'Something went wrong.';
    return `⚠️ ${line.length > 400 ? `${line.slice(0, 400)}…` : line}`;
  },
  stoppedNote: '⏹ stopped',
  stopped: (dropped: number, running: boolean) => {
    const parts = [running ? '⏹ Stopped the current reply.' : '⏹ Nothing was running.'];
    if (dropped > 0) parts.push(`Dropped ${plural(dropped, 'queued message')}.`);
    return parts.join(' ');
  },
  nothingToStop: 'Nothing to stop.',
  stopping: 'Stopping.',
  alreadyFinished: 'That reply has already finished.',
  shuttingDown: 'Bot is shutting down; reply stopped.',
  alreadyHandled: 'Already handled.',
  crashNotice:
    '⚠️ The bot restarted while answering; that reply was cut off. Send your message again to continue.',
  corruptSession: (id: string, status: string, reason: string) =>
    `⚠️ This chat's session ${id} could not be read (${status}${reason ? `: ${reason}` : ''}). ` +
    'Its files were moved aside intact; starting a fresh session.',
  approvalPrompt,
  approvalOnlyFor: (name: string) => `Only ${name} or an admin can answer this.`,
  expired: 'This request has expired; please ask again.',
  allowed: (name: string) => `✅ Allowed by ${name}`,
  allowedSession: (name: string) => `✅ Allowed for this session by ${name}`,
  denied: (name: string) => `🚫 Denied by ${name}`,
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
  leaseLost:
    '⚠️ stopped: this bot process stalled past its lease on the chat; send your message again to continue',
} as const;

const VERBS: Record<ToolClass, string> = { execute: 'run', modify: 'change', inspect: 'read' };
const MAX_DETAIL = 1_000;

/** `🔐 Bash wants to run: \`npm test\`` from a permission request. */
function approvalPrompt(request: Pick<PermissionRequest, 'toolName' | 'summary' | 'toolClass'>): string {
  const prefix = `${request.toolName}: `;
  let detail = request.summary.startsWith(prefix) ? request.summary.slice(prefix.length) : request.summary;
  if (detail.length > MAX_DETAIL) detail = `${detail.slice(0, MAX_DETAIL)}…`;
  const verb = VERBS[request.toolClass] ?? 'use';
  if (!detail.trim()) return `🔐 ${request.toolName} wants to ${verb}.`;
  return `🔐 ${request.toolName} wants to ${verb}: ${codeSpan(detail)}`;
}

/** A Markdown code span that survives backticks inside the text. */
function codeSpan(text: string): string {
  const runs = text.match(/`+/g) ?? [];
  const fence = '`'.repeat(Math.max(0, ...runs.map((r) => r.length)) + 1);
  const pad = runs.length ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

const KIND_NAMES: Record<Attachment['kind'], string> = {
  audio: 'voice messages',
  video: 'videos',
  document: 'files',
  sticker: 'stickers',
  image: 'images',
  other: 'attachments',
};

function describeKinds(attachments: readonly Attachment[]): string {
  const names = [...new Set(attachments.map((a) => KIND_NAMES[a.kind]))];
  if (names.length <= 1) return names[0] ?? 'attachments';
  return `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}
