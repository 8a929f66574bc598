/**
 * Write: creates or replaces a file, making missing parent folders, all
 * inside the workspace.
 */
import { z } from 'zod';
import { defineTool, filePathField, onFilePath } from './define.js';
import { fileRequest } from './in-sandbox.js';
import type { Tool } from './types.js';

const schema = z
  .object({
    file_path: filePathField,
    content: z.string().describe('The complete new content of the file.'),
  })
  .strict();

/** Builds the Write tool. */
export function createWriteTool(): Tool {
  return defineTool({
    name: 'Write',
    description:
      'Writes a file in the workspace, replacing it if it exists and creating missing parent folders. ' +
      'Prefer Edit for changing part of an existing file.',
    toolClass: 'modify',
    schema,
    ...onFilePath,
    async run(input, context) {
      // Folders are made and the file opened inside the sandbox, one component at a time.
      const { shown, existed } = await fileRequest<{ shown: string; existed: boolean }>(
        context,
        'write',
        input.file_path,
        { content: input.content },
      );
      const bytes = Buffer.byteLength(input.content, 'utf8');
      return { content: `${existed ? 'Overwrote' : 'Created'} ${shown} (${bytes} bytes).` };
    },
  });
}
