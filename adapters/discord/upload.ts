/**
 * Files into a Discord thread or DM: a message with the file attached,
 * uploaded as multipart/form-data through discord.js's REST client (the
 * JSON in `payload_json`, the file in `files[0]`, per
 * https://discord.com/developers/docs/reference#uploading-files). Discord
 * shows PNG, JPEG, GIF and WebP attachments inline by themselves. A bot may
 * upload 10 MiB by default; over that Discord answers 413 with code 40005.
 * The caption never pings anyone (allowed_mentions: none) and is escaped
 * so it shows as written.
 */
import { DiscordAPIError, escapeMarkdown, type REST, Routes } from 'discord.js';
import type { OutboundFile, SentMessage } from '../../src/bot/adapter-contract.js';
import { SwitchboardError } from '../../src/errors.js';
import { MAX_MESSAGE_LENGTH } from './capabilities.js';
import { parseChatKey } from './chat-key.js';
import { toSwitchboardError } from './errors.js';

/** A file name safe in a multipart header and an `attachment://` reference. */
function attachmentName(name: string): string {
  return name.replace(/[\p{Cc}"\\/]/gu, '_').slice(0, 200) || 'file';
}

/** Uploads `file` into the channel of `chat` as a new message. */
export async function uploadToDiscord(rest: REST, chat: string, file: OutboundFile): Promise<SentMessage> {
  const { channelId } = parseChatKey(chat);
  const name = attachmentName(file.name);
  let content = file.caption ?? '';
  const escaped = escapeMarkdown(content);
  if ([...escaped].length <= MAX_MESSAGE_LENGTH) content = escaped;
  const body = {
    ...(content ? { content } : {}),
    allowed_mentions: { parse: [] },
    attachments: [{ id: 0, filename: name }],
  };
  try {
    const sent = (await rest.post(Routes.channelMessages(channelId), {
      body,
      files: [{ name, data: Buffer.from(file.bytes), contentType: file.mediaType }],
    })) as { id: string };
    return { messageId: sent.id };
  } catch (err) {
    if (err instanceof DiscordAPIError && (err.status === 413 || Number(err.code) === 40005)) {
      throw new SwitchboardError(
        'FILE_TOO_LARGE',
        `Discord refused the upload as too large (${err.status}, code ${err.code}: ${err.message}); a bot may upload 10 MB by default.`,
        { cause: err, detail: { status: err.status, code: err.code } },
      );
    }
    throw toSwitchboardError(err, 'upload a file');
  }
}
