/**
 * Edit: replaces an exact piece of text in a file. The piece must be unique
 * unless `replace_all` is set, so the model cannot change the wrong spot.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { defineTool, describeFsError, onFilePath, toolError } from './define.js';
import { resolveWorkspaceFile } from './paths.js';
import { looksBinary } from './read.js';
import type { Tool } from './types.js';

const schema = z
  .object({
    file_path: z
      .string()
      .min(1)
      .describe('Path of the file, relative to the workspace or absolute inside it.'),
    old_string: z.string().min(1).describe('The exact text to replace, including whitespace.'),
    new_string: z.string().describe('The text to put in its place.'),
    replace_all: z
      .boolean()
      .optional()
      .describe('Replace every occurrence instead of requiring exactly one (default false).'),
  })
  .strict();

function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) {
    count++;
  }
  return count;
}

/** Builds the Edit tool. */
export function createEditTool(): Tool {
  return defineTool({
    name: 'Edit',
    description:
      'Replaces old_string with new_string in a file in the workspace. old_string must match the file ' +
      'exactly (whitespace included) and occur exactly once, unless replace_all is true. Read the file first.',
    toolClass: 'modify',
    schema,
    ...onFilePath,
    async run(input, context) {
      const { real, shown } = await resolveWorkspaceFile(context.cwd, input.file_path);
      if (input.old_string === input.new_string) {
        return toolError('old_string and new_string are the same; there is nothing to change.');
      }
      let raw: Buffer;
      try {
        // A FIFO or device would block the read forever.
        if (!(await stat(real)).isFile()) return toolError(`${shown} is not a regular file.`);
        raw = await readFile(real);
      } catch (err) {
        const reason = describeFsError(err, shown);
        return toolError(
          (err as NodeJS.ErrnoException).code === 'ENOENT' ? `${reason} Use Write to create it.` : reason,
        );
      }
      if (looksBinary(raw))
        return toolError(`${shown} looks like a binary file; Edit changes text files only.`);
      const text = raw.toString('utf8');
      const count = countOccurrences(text, input.old_string);
      if (count === 0) {
        return toolError(
          `old_string was not found in ${shown}. It must match exactly, whitespace and indentation included; Read the file and copy the text.`,
        );
      }
      if (count > 1 && input.replace_all !== true) {
        return toolError(
          `old_string occurs ${count} times in ${shown}. Add surrounding lines to make it unique, or set replace_all to true.`,
        );
      }
      // split/join, not String.replace: `$&` and friends in new_string must stay literal.
      const updated =
        input.replace_all === true
          ? text.split(input.old_string).join(input.new_string)
          : text.replace(input.old_string, () => input.new_string);
      try {
        await writeFile(real, updated, 'utf8');
      } catch (err) {
        return toolError(describeFsError(err, shown));
      }
      return { content: `Edited ${shown}: replaced ${count} occurrence${count === 1 ? '' : 's'}.` };
    },
  });
}
