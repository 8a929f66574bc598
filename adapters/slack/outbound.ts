/**
 * Render operations as Web API calls: chat.postMessage (threaded under the
 * chat's thread), chat.update, chat.delete and ephemeral notices. Sends use a
 * client that retries transport failures; edits use one that never retries,
 * so a 429 reaches the core's scheduler at once as RATE_LIMITED.
 */
import type { webApi } from '@slack/bolt';
import type { Button, OutboundMessage, SentMessage } from '../../src/bot/adapter-contract.js';
import { isErrorCode } from '../../src/errors.js';
import { messageContent } from './buttons.js';
import { toSwitchboardError } from './errors.js';
import { parseSlackChatKey } from './keys.js';
import { BoundedMap, type ThreadTracker } from './threads.js';

type WebClient = webApi.WebClient;

/** What a posted message carries that a later edit must know about. */
interface Remembered {
  buttons: Button[][];
  hasBlocks: boolean;
}

/** Calls `method` and turns any failure into a SwitchboardError. */
export async function callSlack(
  client: WebClient,
  method: string,
  args: Record<string, unknown>,
): Promise<webApi.WebAPICallResult & Record<string, unknown>> {
  try {
    return (await client.apiCall(method, args)) as webApi.WebAPICallResult & Record<string, unknown>;
  } catch (err) {
    throw toSwitchboardError(err, method);
  }
}

/**
 * A user mention the core escaped (the mention policy did not let it
 * notify), as mrkdwn (`&lt;@W111&gt;`) or Markdown (`\<@W111\>`) writes it,
 * with its optional label.
 */
const ESCAPED_MENTION =
  /&lt;@([UW][A-Z0-9]+)(?:\|([^&<>\n]*))?&gt;|\\<@([UW][A-Z0-9]+)(?:\\\|([^<>\n]*?))?\\>/g;

/**
 * `text` with each escaped user mention said as the person's name
 * (`@Ann`): it notifies nobody either way, and a name reads better than
 * the raw markup Slack would show.
 */
export async function nameEscapedMentions(
  text: string,
  nameOf: (id: string) => Promise<string>,
): Promise<string> {
  const found = [...text.matchAll(ESCAPED_MENTION)];
  if (found.length === 0) return text;
  const names = new Map<string, string>();
  for (const m of found) {
    const id = m[1] ?? m[3] ?? '';
    if (!(m[2] ?? m[4]) && !names.has(id)) names.set(id, await nameOf(id));
  }
  return text.replace(ESCAPED_MENTION, (_m, id1, label1, id3, label3) => {
    const label = label1 ?? label3;
    return `@${label || names.get(id1 ?? id3) || id1 || id3}`;
  });
}

/** The outbound half of the adapter. */
export class SlackOutbound {
  readonly #messages = new BoundedMap<Remembered>(5_000);

  constructor(
    private readonly clients: { send: WebClient; edit: WebClient },
    private readonly tracker: ThreadTracker,
    /** A person's display name, for escaped mentions shown as names. */
    private readonly nameOf: (id: string) => Promise<string> = async (id) => id,
  ) {}

  /** The message with escaped user mentions named. */
  async #named(message: OutboundMessage): Promise<OutboundMessage> {
    const text = await nameEscapedMentions(message.text, this.nameOf);
    return text === message.text ? message : { ...message, text };
  }

  async send(chat: string, outbound: OutboundMessage): Promise<SentMessage> {
    const { channel, threadTs } = parseSlackChatKey(chat);
    const message = await this.#named(outbound);
    const content = messageContent(message);
    const res = await callSlack(this.clients.send, 'chat.postMessage', {
      channel,
      thread_ts: threadTs,
      ...content,
      unfurl_links: false,
      unfurl_media: false,
    });
    const ts = String(res.ts);
    this.remember(channel, ts, message.buttons ?? [], content.blocks !== undefined);
    this.tracker.join(channel, threadTs);
    this.tracker.touch(channel, threadTs);
    return { messageId: ts };
  }

  async edit(chat: string, messageId: string, outbound: OutboundMessage): Promise<void> {
    const { channel } = parseSlackChatKey(chat);
    const message = await this.#named(outbound);
    const before = this.#messages.get(`${channel}:${messageId}`);
    // Slack keeps a message's blocks when an update leaves them out, so the
    // buttons are restated (or explicitly cleared) on every edit.
    const buttons = message.buttons ?? before?.buttons ?? [];
    const content = messageContent({ ...message, buttons }, before?.hasBlocks ?? false);
    await callSlack(this.clients.edit, 'chat.update', { channel, ts: messageId, ...content });
    this.remember(channel, messageId, buttons, (content.blocks?.length ?? 0) > 0);
  }

  async delete(chat: string, messageId: string): Promise<void> {
    const { channel } = parseSlackChatKey(chat);
    try {
      await callSlack(this.clients.send, 'chat.delete', { channel, ts: messageId });
    } catch (err) {
      // Already gone is what we wanted.
      if (!isErrorCode(err, 'NOT_FOUND')) throw err;
    }
    this.#messages.delete(`${channel}:${messageId}`);
  }

  /** A notice only `user` sees, in the thread. */
  async ephemeral(channel: string, threadTs: string | undefined, user: string, text: string): Promise<void> {
    await callSlack(this.clients.send, 'chat.postEphemeral', {
      channel,
      user,
      text,
      ...(threadTs ? { thread_ts: threadTs } : {}),
    });
  }

  /** Records what an edit of this message must restate. */
  remember(channel: string, ts: string, buttons: Button[][], hasBlocks: boolean): void {
    this.#messages.set(`${channel}:${ts}`, { buttons, hasBlocks });
  }
}
