/**
 * Glob: finds files by name pattern under the workspace, newest first.
 */
import { z } from 'zod';
import { defineTool, onPatternInPath, toolError } from './define.js';
import { compileGlob, splitLiteralPrefix } from './glob-pattern.js';
import { fileRequest, type WalkReply } from './in-sandbox.js';
import type { Tool } from './types.js';

/** Most paths one Glob call lists. */
export const GLOB_MAX_RESULTS = 100;
/** Most directory entries one Glob call looks at. */
export const GLOB_MAX_ENTRIES = 50_000;

const schema = z
  .object({
    pattern: z
      .string()
      .min(1)
      .describe('Glob such as "**/*.ts" or "src/*.{js,json}", relative to path (default: the workspace).'),
    path: z.string().min(1).optional().describe('Folder to search in, inside the workspace.'),
  })
  .strict();

/** Builds the Glob tool. */
export function createGlobTool(): Tool {
  return defineTool({
    name: 'Glob',
    description:
      'Lists files in the workspace whose path (relative to `path`, default the workspace) matches a glob: ' +
      '`*` and `?` within a name, `**` across folders, `[abc]`, `{a,b}`. Results are workspace-relative, ' +
      `sorted by modification time, newest first (ties by name), at most ${GLOB_MAX_RESULTS}. ` +
      'node_modules and .git are skipped unless the pattern starts inside them.',
    toolClass: 'inspect',
    schema,
    ...onPatternInPath,
    async run(input, context) {
      const { prefix, rest } = splitLiteralPrefix(input.pattern);
      const matcher = compileGlob('Glob', 'pattern', rest);
      if (typeof matcher === 'string') return toolError(matcher);
      // The literal folders go through the same confinement as any path,
      // which also turns `../x/*` and absolute patterns outside into errors.
      const base = input.path ?? '.';
      const start = prefix === '' ? base : prefix.startsWith('/') ? prefix : `${base}/${prefix}`;
      let walked: WalkReply;
      try {
        walked = await fileRequest<WalkReply>(context, 'walk', start, { maxEntries: GLOB_MAX_ENTRIES });
      } catch (err) {
        if (err instanceof Error && / does not exist\.$/.test(err.message)) {
          return { content: `No files match ${input.pattern}.` };
        }
        throw err;
      }
      if (walked.kind !== 'dir') return toolError(`${walked.shown} is not a folder.`);
      const stats = { truncated: walked.truncated };
      const found = walked.files
        .filter((file) => matcher.test(file.rel))
        .map((file) => ({ shown: file.shown, mtimeMs: file.mtimeMs }));
      if (found.length === 0) {
        return { content: `No files match ${input.pattern}.${walkNote(stats)}` };
      }
      found.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.shown < b.shown ? -1 : a.shown > b.shown ? 1 : 0));
      const lines = found.slice(0, GLOB_MAX_RESULTS).map((f) => f.shown);
      if (found.length > GLOB_MAX_RESULTS) {
        lines.push(
          `[${found.length - GLOB_MAX_RESULTS} more matches not shown; showing the ${GLOB_MAX_RESULTS} newest. Narrow the pattern or path.]`,
        );
      }
      return { content: lines.join('\n') + walkNote(stats) };
    },
  });
}

function walkNote(stats: { truncated: boolean }): string {
  return stats.truncated
    ? `\n[search stopped after ${GLOB_MAX_ENTRIES} entries; narrow the pattern or path]`
    : '';
}
