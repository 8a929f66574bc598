/**
 * Files into a Slack thread through the current upload flow
 * (https://docs.slack.dev/reference/methods/files.getUploadURLExternal;
 * files.upload is retired): files.getUploadURLExternal, the bytes posted to
 * the URL it gives, then files.completeUploadExternal with the channel and
 * thread, as @slack/web-api's filesUploadV2 does. Slack shows an image
 * inline by its type, so the core's image / document choice needs nothing
 * more here. The client given never retries and rejects rate-limited calls,
 * so a 429 reaches the core's scheduler.
 */
import type { webApi } from '@slack/bolt';
import type { OutboundFile, SentMessage } from '../../src/bot/adapter-contract.js';
import { SwitchboardError } from '../../src/errors.js';
import { slackErrorCode, toSwitchboardError } from './errors.js';
import { parseSlackChatKey } from './keys.js';

/** Slack's limit for one file (https://docs.slack.dev/messaging/working-with-files). */
export const MAX_UPLOAD_BYTES = 1024 * 1024 * 1024;

/** Slack's answers that mean the file is too large for this workspace. */
const TOO_LARGE = new Set(['file_upload_size_restricted', 'snippet_too_large']);

/** Text Slack reads as markup in a message: `&`, `<` and `>` escaped, so a caption cannot mention anyone. */
export function escapeSlackText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Uploads `file` into the thread of `chat`; the id returned is the file's (uploads make no message the bot edits). */
export async function uploadToSlack(
  client: webApi.WebClient,
  chat: string,
  file: OutboundFile,
): Promise<SentMessage> {
  const { channel, threadTs } = parseSlackChatKey(chat);
  const common = {
    channel_id: channel,
    file: Buffer.from(file.bytes),
    filename: file.name,
    title: file.name,
    ...(file.caption ? { initial_comment: escapeSlackText(file.caption) } : {}),
  };
  let result: webApi.WebAPICallResult & { files?: Array<{ files?: Array<{ id?: string }> }> };
  try {
    result = await client.filesUploadV2(threadTs ? { ...common, thread_ts: threadTs } : common);
  } catch (err) {
    const code = slackErrorCode(err);
    if (code && TOO_LARGE.has(code)) {
      throw new SwitchboardError(
        'FILE_TOO_LARGE',
        `Slack refused the upload as too large for this workspace (${code}); its administrators limit file sizes.`,
        { cause: err, detail: { slackError: code } },
      );
    }
    throw toSwitchboardError(err, 'files.uploadV2');
  }
  const id = result.files?.[0]?.files?.[0]?.id;
  return { messageId: id ?? `upload:${file.name}` };
}
