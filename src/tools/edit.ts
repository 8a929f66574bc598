/**
 * Edit: replaces an exact piece of text in a file. The piece must be unique
 * unless `replace_all` is set, so the model cannot change the wrong spot.
 */
import { z } from 'zod';
import { defineTool, filePathField, onFilePath, toolError } from './define.js';
import { fileRequest, type PathInfo } from './in-sandbox.js';
import { looksBinary, READ_MAX_FILE_BYTES } from './read.js';
import type { Tool } from './types.js';

const schema = z
  .object({
    file_path: filePathField,
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
      if (input.old_string === input.new_string) {
        return toolError('old_string and new_string are the same; there is nothing to change.');
      }
      let file: PathInfo & { data?: string };
      try {
        file = await fileRequest(context, 'read', input.file_path, { maxBytes: READ_MAX_FILE_BYTES });
      } catch (err) {
        const missing = err instanceof Error && / does not exist\.$/.test(err.message);
        if (missing) return toolError(`${err.message} Use Write to create it.`);
        throw err;
      }
      const { shown } = file;
      // A FIFO or device would block the read forever.
      if (file.kind !== 'file') return toolError(`${shown} is not a regular file.`);
      if (file.data === undefined)
        return toolError(`${shown} is over ${READ_MAX_FILE_BYTES} bytes; Edit changes smaller files.`);
      const raw = Buffer.from(file.data, 'base64');
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
      await fileRequest(context, 'write', shown, { content: updated });
      return { content: `Edited ${shown}: replaced ${count} occurrence${count === 1 ? '' : 's'}.` };
    },
  });
}
