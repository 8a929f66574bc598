/**
 * What an approval prompt shows, so a person can judge the request: Bash
 * shows the whole command and the model's description of it, Write the file
 * and its new content, Edit a diff of the change, any other tool its input.
 * Hidden characters are made visible everywhere (see visible-text.ts).
 *
 * A prompt must fit in one message, because that message carries the buttons
 * and is edited with the outcome. When the detail is too long for it, the
 * whole detail goes first in messages of its own and the prompt (a reply to
 * them where the platform has replies) holds a preview and says so: the
 * full text is one tap away, and a command is never cut short.
 */
import { diffLines } from 'diff';
import type { PermissionRequest } from '../session/types.js';
import type { ToolClass } from '../vocabulary.js';
import { fenceFor, markdownInlineCode } from './format/syntax.js';
import { showCommand, showHidden } from './visible-text.js';

/** The messages of one approval request. */
export interface ApprovalView {
  /** The message with the buttons: what is asked, the detail or its preview. */
  prompt: string;
  /** The whole detail, sent before the prompt when the prompt holds only part of it. */
  full?: string;
}

/** The part of a request an approval prompt reads. */
export type PromptRequest = Pick<PermissionRequest, 'toolName' | 'toolArgs' | 'summary' | 'toolClass'>;

/** Share of a message's limit the detail may take, leaving room for markup and the outcome line. */
const PROMPT_SHARE = 0.6;
/** Write and Edit content longer than this is not sent whole: the file itself is the full text. */
const FULL_CONTENT_MAX = 30_000;

const VERBS: Record<ToolClass, string> = { execute: 'run', modify: 'change', inspect: 'read' };

/** A detail block: the text, its fence language, and how to name it in "the whole … is above". */
interface Detail {
  header: string;
  body: string;
  lang: string;
  footer?: string;
  /** "command", "new content", "change". */
  noun: string;
  /** Never cut, even in the "full" messages (a command). */
  whole: boolean;
}

/**
 * The prompt for `request` in a chat whose messages hold `messageLimit` characters.
 *
 * @example
 * approvalView({ toolName: 'Bash', toolArgs: { command: 'npm test' }, summary: 'Bash: npm test', toolClass: 'execute' }, 4096);
 * // { prompt: '🔐 Bash wants to run:\n```sh\nnpm test\n```' }
 */
export function approvalView(request: PromptRequest, messageLimit: number): ApprovalView {
  const detail = describe(request);
  const budget = Math.max(400, Math.floor(messageLimit * PROMPT_SHARE));
  const single = compose(detail, detail.body);
  if (single.length <= budget) return { prompt: single };

  const lines = detail.body.split('\n');
  const note = (shown: number) =>
    `✂️ Cut to fit: ${count(lines.length - shown, 'more line')}. The whole ${detail.noun} is in the message above.`;
  // The longest run of whole lines that fits with the note; at least part of the first line.
  // The note is longest when nothing is shown, so this room is never too generous.
  let room = budget - compose(detail, '', note(0)).length;
  let shown = 0;
  while (shown < lines.length - 1 && room >= (lines[shown]?.length ?? 0) + 1) {
    room -= (lines[shown]?.length ?? 0) + 1;
    shown++;
  }
  const preview =
    shown > 0
      ? lines.slice(0, shown).join('\n')
      : `${[...(lines[0] ?? '')].slice(0, Math.max(40, budget / 2)).join('')} …`;
  return { prompt: compose(detail, preview, note(shown)), full: fullText(detail) };
}

/** Header, fenced body, footer and an optional note, as one Markdown message. */
function compose(detail: Detail, body: string, note?: string): string {
  const parts = [detail.header, fence(body, detail.lang)];
  if (detail.footer) parts.push(detail.footer);
  if (note) parts.push(note);
  return parts.join('\n');
}

function fullText(detail: Detail): string {
  let body = detail.body;
  let tail = '';
  if (!detail.whole && body.length > FULL_CONTENT_MAX) {
    const rest = body.slice(FULL_CONTENT_MAX);
    body = body.slice(0, FULL_CONTENT_MAX);
    tail = `\n✂️ ${count(rest.length, 'more character')} not shown here; deny and ask for smaller steps to see them all.`;
  }
  return `📄 The whole ${detail.noun}:\n${fence(body, detail.lang)}${tail}`;
}

function describe(request: PromptRequest): Detail {
  const args = request.toolArgs;
  const str = (key: string) => (typeof args[key] === 'string' ? (args[key] as string) : undefined);
  const command = request.toolName === 'Bash' ? str('command') : undefined;
  if (command !== undefined) {
    const description = str('description')?.trim();
    return {
      header: '🔐 Bash wants to run:',
      body: showCommand(command),
      lang: 'sh',
      ...(description ? { footer: `The agent says it will: ${inlineText(description)}` } : {}),
      noun: 'command',
      whole: true,
    };
  }
  const path = str('file_path');
  const content = str('content');
  if (request.toolName === 'Write' && path !== undefined && content !== undefined) {
    const lines = content.split('\n').length - (content.endsWith('\n') ? 1 : 0);
    const size = content === '' ? 'empty' : count(lines, 'line');
    return {
      header: `🔐 Write wants to write ${markdownInlineCode(showHidden(path))} (${size}):`,
      body: showHidden(content),
      lang: languageOf(path),
      noun: 'new content',
      whole: false,
    };
  }
  const before = str('old_string');
  const after = str('new_string');
  if (request.toolName === 'Edit' && path !== undefined && before !== undefined && after !== undefined) {
    const every = args.replace_all === true ? ' (every occurrence)' : '';
    return {
      header: `🔐 Edit wants to change ${markdownInlineCode(showHidden(path))}${every}:`,
      body: diffBody(before, after),
      lang: 'diff',
      noun: 'change',
      whole: false,
    };
  }
  const verb = VERBS[request.toolClass] ?? 'use';
  const input = JSON.stringify(args, null, 2) ?? '{}';
  return {
    header: `🔐 ${inlineText(request.toolName)} wants to ${verb}: ${inlineText(request.summary)}`,
    body: showHidden(input),
    lang: 'json',
    noun: 'input',
    whole: false,
  };
}

/** `- old` / `+ new` / `  same` lines, one per line of the replaced text. */
function diffBody(before: string, after: string): string {
  const out: string[] = [];
  for (const change of diffLines(before, after)) {
    const mark = change.added ? '+' : change.removed ? '-' : ' ';
    const lines = change.value.replace(/\n$/, '').split('\n');
    for (const line of lines) out.push(`${mark} ${showHidden(line)}`);
  }
  return out.join('\n');
}

/** A fenced code block that nothing inside can close. */
function fence(body: string, lang: string): string {
  const ticks = fenceFor(body);
  return `${ticks}${lang}\n${body}\n${ticks}`;
}

/** Model-written words on one line, hidden characters shown, Markdown made literal. */
function inlineText(text: string): string {
  const flat = showHidden(text.replace(/[\r\n]+/g, ' '));
  return flat.replace(/[\\`*_{}[\]()#+\-.!|~<>]/g, '\\$&');
}

const count = (n: number, one: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : `${one}s`}`;

const LANGUAGES: Record<string, string> = {
  ts: 'ts',
  tsx: 'tsx',
  js: 'js',
  mjs: 'js',
  cjs: 'js',
  json: 'json',
  py: 'python',
  sh: 'sh',
  md: 'markdown',
  yml: 'yaml',
  yaml: 'yaml',
  html: 'html',
  css: 'css',
  go: 'go',
  rs: 'rust',
  sql: 'sql',
};

function languageOf(path: string): string {
  const ext = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
  return (ext && LANGUAGES[ext]) ?? '';
}
