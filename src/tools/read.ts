/**
 * Read: shows a text file with line numbers, a window of lines at a time.
 */
import { z } from 'zod';
import { defineTool, filePathField, onFilePath, toolError } from './define.js';
import { fileRequest, type PathInfo } from './in-sandbox.js';
import type { Tool } from './types.js';

/** Lines shown when the model does not ask for a window. */
export const READ_DEFAULT_LIMIT = 2000;
/** Longer lines are cut, so one minified file cannot fill the context. */
export const READ_MAX_LINE_CHARS = 2000;
/** Files larger than this are refused; the model should use Grep or Bash to narrow down. */
export const READ_MAX_FILE_BYTES = 10 * 1024 * 1024;
/** Most characters one Read returns (about 25,000 tokens); a window of long lines ends early. */
export const READ_MAX_OUTPUT_CHARS = 100_000;
/** How far into a file we look for NUL bytes to call it binary (git uses the same idea). */
const BINARY_SNIFF_BYTES = 8192;

const schema = z
  .object({
    file_path: filePathField,
    offset: z.number().int().positive().optional().describe('1-based line number to start at (default 1).'),
    limit: z
      .number()
      .int()
      .positive()
      .optional()
      .describe(`How many lines to show (default ${READ_DEFAULT_LIMIT}).`),
  })
  .strict();

/** True when the start of `buffer` contains a NUL byte, the usual mark of a binary file. */
export function looksBinary(buffer: Uint8Array): boolean {
  return buffer.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

/** Builds the Read tool; `maxOutputChars` caps what one call returns (default {@link READ_MAX_OUTPUT_CHARS}). */
export function createReadTool(options: { maxOutputChars?: number } = {}): Tool {
  const maxOutputChars = options.maxOutputChars ?? READ_MAX_OUTPUT_CHARS;
  return defineTool({
    name: 'Read',
    description:
      'Reads a text file in the workspace and returns its lines numbered from 1 (`     1\\tline`). ' +
      `Shows ${READ_DEFAULT_LIMIT} lines from the start unless offset/limit say otherwise; lines over ` +
      `${READ_MAX_LINE_CHARS} characters are cut. Binary files and files over 10 MB are refused.`,
    toolClass: 'inspect',
    schema,
    ...onFilePath,
    async run(input, context) {
      // Opened inside the sandbox, without a window between the path check and the read.
      const file = await fileRequest<PathInfo & { data?: string }>(context, 'read', input.file_path, {
        maxBytes: READ_MAX_FILE_BYTES,
      });
      const { shown } = file;
      if (file.kind === 'dir') return toolError(`${shown} is a directory; use Glob to list files.`);
      // A FIFO or device would block the read forever.
      if (file.kind !== 'file') return toolError(`${shown} is not a regular file.`);
      if (file.data === undefined) {
        return toolError(
          `${shown} is ${file.size} bytes, over the ${READ_MAX_FILE_BYTES}-byte limit for Read; use Grep to find the part you need.`,
        );
      }
      const buffer = Buffer.from(file.data, 'base64');
      if (looksBinary(buffer)) {
        return toolError(
          `${shown} looks like a binary file (it contains NUL bytes); Read shows text files only.`,
        );
      }
      return { content: numberLines(buffer.toString('utf8'), input, shown, maxOutputChars) };
    },
  });
}

function numberLines(
  text: string,
  window: { offset?: number | undefined; limit?: number | undefined },
  shown: string,
  maxChars: number,
): string {
  if (text.length === 0) return `${shown} is empty.`;
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  const first = window.offset ?? 1;
  if (first > lines.length) {
    return `${shown} has ${lines.length} lines; offset ${first} is past the end.`;
  }
  const last = Math.min(lines.length, first - 1 + (window.limit ?? READ_DEFAULT_LIMIT));
  const out: string[] = [];
  let used = 0;
  let shownUpTo = first - 1;
  for (let n = first; n <= last; n++) {
    let line = lines[n - 1]!;
    if (line.length > READ_MAX_LINE_CHARS) {
      line = `${line.slice(0, READ_MAX_LINE_CHARS)}… [line cut at ${READ_MAX_LINE_CHARS} characters]`;
    }
    const numbered = `${String(n).padStart(6)}\t${line}`;
    if (used + numbered.length + 1 > maxChars && out.length > 0) break;
    out.push(numbered);
    used += numbered.length + 1;
    shownUpTo = n;
  }
  if (shownUpTo < lines.length) {
    out.push(
      `[showing lines ${first}-${shownUpTo} of ${lines.length}; use offset ${shownUpTo + 1} to read on]`,
    );
  }
  return out.join('\n');
}
