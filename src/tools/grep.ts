/**
 * Grep: searches file contents under the workspace with a regular expression.
 */
import { basename } from 'node:path';
import { z } from 'zod';
import { SwitchboardError } from '../errors.js';
import { defineTool, onPatternInPath, toolError } from './define.js';
import { compileGlob } from './glob-pattern.js';
import { fileRequest, inSandbox, type WalkReply } from './in-sandbox.js';
import type { Tool, ToolContext, ToolResult } from './types.js';

/** Most matching lines (or files) one Grep call returns. */
export const GREP_MAX_RESULTS = 200;
/** Matching lines are cut to this many characters. */
export const GREP_MAX_LINE_CHARS = 300;
/** Larger files are skipped: searching them belongs in Bash with ripgrep. */
export const GREP_MAX_FILE_BYTES = 5 * 1024 * 1024;
/** Most directory entries one Grep call looks at. */
export const GREP_MAX_ENTRIES = 50_000;
/**
 * Most real time one search may take. The pattern runs in the sandbox's
 * process, off the bot's event loop; one that backtracks without end
 * (`(a+)+$`) is stopped by ending that process.
 */
export const GREP_TIME_LIMIT_MS = 10_000;

const schema = z
  .object({
    pattern: z.string().min(1).describe('JavaScript regular expression to search for, line by line.'),
    path: z
      .string()
      .min(1)
      .optional()
      .describe('File or folder to search, inside the workspace (default: the workspace).'),
    glob: z
      .string()
      .min(1)
      .optional()
      .describe('Only search files matching this glob ("*.ts" matches names anywhere; "src/**/*.ts" paths).'),
    case_insensitive: z.boolean().optional().describe('Ignore case (default false).'),
    output_mode: z
      .enum(['content', 'files_with_matches', 'count'])
      .optional()
      .describe(
        'content: matching lines as path:line:text (default); files_with_matches: paths; count: path:N.',
      ),
  })
  .strict();

/** Options for {@link createGrepTool}. */
export interface GrepToolOptions {
  /** Cap on the characters one call returns. */
  maxOutputChars: number;
  /** Time one search may take before it is stopped (default {@link GREP_TIME_LIMIT_MS}). */
  timeLimitMs?: number;
}

/** Builds the Grep tool. */
export function createGrepTool(options: GrepToolOptions): Tool {
  return defineTool({
    name: 'Grep',
    description:
      'Searches text files in the workspace for a regular expression, line by line. Skips node_modules, ' +
      `.git, binary files and files over 5 MB. Returns at most ${GREP_MAX_RESULTS} results, in path order.`,
    toolClass: 'inspect',
    schema,
    ...onPatternInPath,
    // The walk and the search share one sandbox, also when the caller gave none.
    run: (input, context) => inSandbox(context, (sandbox) => search(input, { ...context, sandbox }, options)),
  });
}

async function search(
  input: z.infer<typeof schema>,
  context: ToolContext,
  options: GrepToolOptions,
): Promise<ToolResult> {
  const flags = input.case_insensitive === true ? 'i' : '';
  try {
    new RegExp(input.pattern, flags);
  } catch (err) {
    return toolError(`Invalid input for Grep: pattern: ${(err as Error).message}`);
  }
  const filter = input.glob === undefined ? undefined : compileGlob('Grep', 'glob', input.glob);
  if (typeof filter === 'string') return toolError(filter);
  const byName = input.glob !== undefined && !input.glob.includes('/');
  const mode = input.output_mode ?? 'content';
  const path = input.path ?? '.';
  const timeLimitMs = options.timeLimitMs ?? GREP_TIME_LIMIT_MS;
  const results: string[] = [];
  let chars = 0;
  let full = false;
  const push = (line: string): boolean => {
    if (results.length >= GREP_MAX_RESULTS || chars + line.length + 1 > options.maxOutputChars) {
      full = true;
      return false;
    }
    results.push(line);
    chars += line.length + 1;
    return true;
  };

  const walked = await fileRequest<WalkReply>(context, 'walk', path, { maxEntries: GREP_MAX_ENTRIES });
  let files: string[];
  if (walked.kind === 'dir') {
    files = walked.files
      .filter((file) => !filter || filter.test(byName ? basename(file.rel) : file.rel))
      .map((file) => file.shown);
  } else if (walked.kind === 'file') {
    files = !filter || filter.test(basename(walked.shown)) ? [walked.shown] : [];
  } else {
    return toolError(`${walked.shown} is not a regular file or folder.`);
  }
  const stats = { truncated: walked.truncated };

  let matches: GrepMatch[];
  try {
    matches = await fileRequest<GrepMatch[]>(
      context,
      'grep',
      path,
      {
        files,
        pattern: input.pattern,
        flags,
        maxBytes: GREP_MAX_FILE_BYTES,
        // One more than there is room for, so a cut-off list is noticed.
        maxLines: mode === 'content' ? GREP_MAX_RESULTS + 1 : 0,
        perFile: mode === 'files_with_matches' ? 1 : Number.MAX_SAFE_INTEGER,
      },
      timeLimitMs,
    );
  } catch (err) {
    if (err instanceof SwitchboardError && err.detail.timedOut === true) {
      return toolError(
        `Grep was stopped after ${timeLimitMs} ms: the pattern probably backtracks without end (nested quantifiers such as (a+)+). Simplify the pattern or narrow the path.`,
      );
    }
    throw err;
  }
  for (const match of matches) {
    if (mode === 'files_with_matches') push(match.shown);
    else if (mode === 'count') push(`${match.shown}:${match.count}`);
    else for (const [n, text] of match.lines) if (!push(`${match.shown}:${n}:${cut(text)}`)) break;
    if (mode === 'content' && match.lines.length < match.count) full = true;
    if (full) break;
  }

  if (results.length === 0) return { content: `No matches for /${input.pattern}/.${walkNote(stats)}` };
  if (full) results.push('[output truncated: more matches not shown; narrow the pattern, path or glob]');
  return { content: results.join('\n') + walkNote(stats) };
}

/** One file's matches as the sandbox reports them. */
interface GrepMatch {
  shown: string;
  count: number;
  /** [line number, text] of the matching lines kept for `content` output. */
  lines: [number, string][];
}

function cut(line: string): string {
  return line.length > GREP_MAX_LINE_CHARS ? `${line.slice(0, GREP_MAX_LINE_CHARS)}…` : line;
}

function walkNote(stats: { truncated: boolean }): string {
  return stats.truncated
    ? `\n[search stopped after ${GREP_MAX_ENTRIES} entries; narrow the path or glob]`
    : '';
}
