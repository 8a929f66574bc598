/**
 * Grep: searches file contents under the workspace with a regular expression.
 */
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { z } from 'zod';
import { defineTool, onPatternInPath, toolError } from './define.js';
import { compileGlob } from './glob-pattern.js';
import { GREP_FILE_TIME_LIMIT_MS, LineMatcher } from './line-matcher.js';
import { displayPath, resolveInWorkspace, workspaceRoot } from './paths.js';
import { looksBinary } from './read.js';
import type { Tool } from './types.js';
import { type WalkedFile, type WalkStats, walkFiles } from './walk.js';

/** Most matching lines (or files) one Grep call returns. */
export const GREP_MAX_RESULTS = 200;
/** Matching lines are cut to this many characters. */
export const GREP_MAX_LINE_CHARS = 300;
/** Larger files are skipped: searching them belongs in Bash with ripgrep. */
export const GREP_MAX_FILE_BYTES = 5 * 1024 * 1024;
/** Most directory entries one Grep call looks at. */
export const GREP_MAX_ENTRIES = 50_000;

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
  /** CPU time one file may take before the search is stopped (default 2 s). */
  fileTimeLimitMs?: number;
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
    async run(input, context) {
      let matcher: LineMatcher;
      try {
        matcher = new LineMatcher(
          input.pattern,
          input.case_insensitive === true ? 'i' : '',
          options.fileTimeLimitMs ?? GREP_FILE_TIME_LIMIT_MS,
        );
      } catch (err) {
        return toolError(`Invalid input for Grep: pattern: ${(err as Error).message}`);
      }
      const filter = input.glob === undefined ? undefined : compileGlob('Grep', 'glob', input.glob);
      if (typeof filter === 'string') return toolError(filter);
      const root = await workspaceRoot(context.cwd);
      const start = await resolveInWorkspace(root, input.path ?? '.');
      const byName = input.glob !== undefined && !input.glob.includes('/');
      const mode = input.output_mode ?? 'content';
      const stats: WalkStats = { entries: 0, truncated: false };
      const results: string[] = [];
      let chars = 0;
      let full = false;

      let files: AsyncIterable<WalkedFile> | Iterable<WalkedFile>;
      try {
        const info = await stat(start);
        if (info.isDirectory()) {
          files = walkFiles({ root, start, signal: context.signal, maxEntries: GREP_MAX_ENTRIES }, stats);
        } else if (info.isFile()) {
          files = [{ path: start, realPath: start, relFromStart: basename(start) }];
        } else {
          return toolError(`${displayPath(root, start)} is not a regular file or folder.`);
        }
      } catch {
        return toolError(`${displayPath(root, start)} does not exist.`);
      }

      const push = (line: string): boolean => {
        if (results.length >= GREP_MAX_RESULTS || chars + line.length + 1 > options.maxOutputChars) {
          full = true;
          return false;
        }
        results.push(line);
        chars += line.length + 1;
        return true;
      };

      for await (const file of files) {
        if (filter && !filter.test(byName ? basename(file.relFromStart) : file.relFromStart)) continue;
        const text = await readText(file.realPath);
        if (text === undefined) continue;
        const shown = displayPath(root, file.path);
        // One more than there is room for, so a cut-off list is noticed.
        const room = GREP_MAX_RESULTS - results.length;
        const max =
          mode === 'content' ? room + 1 : mode === 'files_with_matches' ? 1 : Number.MAX_SAFE_INTEGER;
        const { lines, hits } = matcher.match(text, max);
        if (hits.length === 0) continue;
        if (mode === 'files_with_matches') push(shown);
        else if (mode === 'count') push(`${shown}:${hits.length}`);
        else {
          for (const i of hits.slice(0, room)) if (!push(`${shown}:${i + 1}:${cut(lines[i]!)}`)) break;
          if (hits.length > room) full = true;
        }
        if (full) break;
      }

      if (results.length === 0) return { content: `No matches for /${input.pattern}/.${walkNote(stats)}` };
      if (full) results.push('[output truncated: more matches not shown; narrow the pattern, path or glob]');
      return { content: results.join('\n') + walkNote(stats) };
    },
  });
}

/** The file's text, or undefined when it is binary, too large or unreadable. */
async function readText(path: string): Promise<string | undefined> {
  try {
    const info = await stat(path);
    if (!info.isFile() || info.size > GREP_MAX_FILE_BYTES) return undefined;
    const buffer = await readFile(path);
    return looksBinary(buffer) ? undefined : buffer.toString('utf8');
  } catch {
    return undefined;
  }
}

function cut(line: string): string {
  return line.length > GREP_MAX_LINE_CHARS ? `${line.slice(0, GREP_MAX_LINE_CHARS)}…` : line;
}

function walkNote(stats: WalkStats): string {
  return stats.truncated
    ? `\n[search stopped after ${GREP_MAX_ENTRIES} entries; narrow the path or glob]`
    : '';
}
