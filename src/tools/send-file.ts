/**
 * SendFile: the agent sends a workspace file to the chat, with a caption.
 * The file is read through the sandbox like Read reads it (so `../` and a
 * symlink out of the workspace lead nowhere), its type is read from its
 * first bytes rather than trusted from its name, and the bot core delivers
 * it after the reply text written before it. A file the chat cannot take
 * comes back to the model as an error result naming the limit.
 */
import { basename, join } from 'node:path';
import { z } from 'zod';
import { formatBytes } from '../bytes.js';
import { sniffMediaType } from '../media-type.js';
import { defineTool, filePathField, onFilePath, toolError } from './define.js';
import { fileRequest, type PathInfo } from './in-sandbox.js';
import type { Tool } from './types.js';

/**
 * The most SendFile reads into memory, whatever a chat allows (Slack takes
 * 1 GB): the file passes through the bot's memory once as bytes and once as
 * base64 on its way out of the sandbox.
 */
export const SEND_FILE_MAX_BYTES = 50 * 1024 * 1024;
/** Longest caption the model may give; a platform's own caption limit is handled by the bot core. */
export const SEND_FILE_MAX_CAPTION = 4000;

const schema = z
  .object({
    file_path: filePathField,
    caption: z
      .string()
      .max(SEND_FILE_MAX_CAPTION)
      .optional()
      .describe('A short line shown with the file (plain text).'),
  })
  .strict();

/** Builds the SendFile tool. */
export function createSendFileTool(): Tool {
  return defineTool({
    name: 'SendFile',
    description:
      'Sends a file from the workspace to the chat, with an optional caption: PNG, JPEG, GIF and WebP images ' +
      'are shown inline (larger ones than the chat shows inline go as documents), other files as documents. ' +
      'Write the file first (with Write or Bash), then send it. Each chat has an upload limit (set by its platform, ' +
      `at most ${formatBytes(SEND_FILE_MAX_BYTES)} anywhere); a file over it is refused with the limit, ` +
      'so compress or split it. In a terminal chat the path is printed instead.',
    toolClass: 'inspect',
    schema,
    ...onFilePath,
    async run(input, context) {
      const sender = context.sendFile;
      if (!sender) {
        return toolError('SendFile works only in a chat: this session has no chat to send files to.');
      }
      if (sender.maxBytes === undefined) {
        return toolError('This chat cannot take files; describe the result in text instead.');
      }
      const limit = Math.min(sender.maxBytes, SEND_FILE_MAX_BYTES);
      const file = await fileRequest<PathInfo & { data?: string }>(context, 'read', input.file_path, {
        maxBytes: limit,
      });
      const { shown } = file;
      if (file.kind === 'dir') return toolError(`${shown} is a directory; send one file (zip it first).`);
      if (file.kind !== 'file') return toolError(`${shown} is not a regular file.`);
      if (file.data === undefined) {
        const whose =
          limit === sender.maxBytes ? "this chat's upload limit" : "SendFile's limit (the chat allows more)";
        return toolError(
          `${shown} is ${formatBytes(file.size)} (${file.size} bytes), over ${whose} of ${formatBytes(limit)} ` +
            `(${limit} bytes). Compress it, split it, or send a smaller version.`,
        );
      }
      const bytes = Buffer.from(file.data, 'base64');
      if (bytes.length === 0) return toolError(`${shown} is empty; there is nothing to send.`);
      const mediaType = sniffMediaType(bytes);
      const caption = input.caption?.trim();
      const sent = await sender.send({
        name: basename(shown),
        path: join(context.cwd, shown),
        bytes,
        mediaType,
        ...(caption ? { caption } : {}),
      });
      if ('error' in sent) return toolError(sent.error);
      const how =
        sent.shownAs === 'path'
          ? 'its path was shown in the terminal'
          : `it was sent as ${sent.shownAs === 'image' ? 'an image' : 'a document'}`;
      return { content: `Sent ${shown} (${formatBytes(bytes.length)}, ${mediaType}): ${how}.` };
    },
  });
}
