/**
 * Write: creates or replaces a file, making missing parent folders, all
 * inside the workspace.
 */
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { defineTool, describeFsError, onFilePath, toolError } from './define.js';
import { resolveWorkspaceFile } from './paths.js';
import type { Tool } from './types.js';

const schema = z
  .object({
    file_path: z
      .string()
      .min(1)
      .describe('Path of the file, relative to the workspace or absolute inside it.'),
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
      const { real, shown } = await resolveWorkspaceFile(context.cwd, input.file_path);
      let existed = false;
      try {
        const info = await stat(real);
        if (info.isDirectory()) return toolError(`${shown} is a directory; give a file path.`);
        // Writing to a FIFO would wait for a reader that never comes.
        if (!info.isFile()) return toolError(`${shown} is not a regular file.`);
        existed = true;
      } catch {
        // New file.
      }
      try {
        // `real` has every existing link resolved and was checked to be inside,
        // so the folders created here are inside too.
        await mkdir(dirname(real), { recursive: true });
        await writeFile(real, input.content, 'utf8');
      } catch (err) {
        return toolError(describeFsError(err, shown));
      }
      const bytes = Buffer.byteLength(input.content, 'utf8');
      return { content: `${existed ? 'Overwrote' : 'Created'} ${shown} (${bytes} bytes).` };
    },
  });
}
