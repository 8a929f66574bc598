/**
 * Files the agent sends, by Teams' file-consent flow ("Send and receive
 * files using bot", https://learn.microsoft.com/en-us/microsoftteams/platform/bots/how-to/bots-filesv4),
 * which Teams allows in personal chats only:
 *
 * 1. the bot posts a file consent card naming the file and its size;
 * 2. the person accepts (or declines): a `fileConsent/invoke` carrying an
 *    upload URL in their OneDrive, pre-authorised, so no token goes there;
 * 3. the bot PUTs the bytes there in one range (`Content-Range`), and posts a
 *    file info card pointing at the uploaded file.
 *
 * The bytes wait in memory between 1 and 2, a bounded number of files for at
 * most an hour; a consent for a file no longer held (after a restart, or
 * too old) is answered with a line saying to ask again. The invoke is
 * answered at once and the upload runs after it, so a large file never
 * misses Teams' five seconds.
 */
import { randomUUID } from 'node:crypto';
import type { OutboundFile, SentMessage } from '../../src/bot/adapter-contract.js';
import { plain } from '../../src/bot/format/dialect.js';
import type { Clock } from '../../src/clock.js';
import { SwitchboardError } from '../../src/errors.js';
import type { Logger } from '../../src/logger.js';
import { TEAMS_MAX_UPLOAD_BYTES } from './capabilities.js';
import { chatKind, conversationOf } from './chat-key.js';
import type { TeamsActivity } from './inbound.js';
import type { TeamsOutbound } from './outbound.js';

/** The card that asks the person to accept a file. */
export const FILE_CONSENT_CARD = 'application/vnd.microsoft.teams.card.file.consent';
/** The card that shows an uploaded file. */
export const FILE_INFO_CARD = 'application/vnd.microsoft.teams.card.file.info';
/** The invoke a consent answer arrives as. */
export const FILE_CONSENT_INVOKE = 'fileConsent/invoke';

/** Said when a consent names a file the bot no longer holds. */
export const FILE_GONE = 'That file is no longer available here; ask me to send it again.';

const MAX_PENDING = 20;
const PENDING_MS = 3600_000;

interface Pending {
  chat: string;
  file: OutboundFile;
  at: number;
}

/** What a consent invoke carries. */
interface ConsentValue {
  action?: unknown;
  context?: { upload?: unknown };
  uploadInfo?: {
    name?: unknown;
    uploadUrl?: unknown;
    contentUrl?: unknown;
    uniqueId?: unknown;
    fileType?: unknown;
  };
}

/** Options of {@link TeamsUploads}. */
export interface UploadsContext {
  outbound: TeamsOutbound;
  clock: Clock;
  logger: Logger;
  /** Give up on one upload after this long (default 2 minutes). */
  timeoutMs?: number;
}

/** The consent flow's two halves: offering a file and answering the consent. */
export class TeamsUploads {
  readonly #pending = new Map<string, Pending>();

  constructor(private readonly ctx: UploadsContext) {}

  /** Posts the consent card; the file waits for the person's answer. */
  async offer(chat: string, file: OutboundFile): Promise<SentMessage> {
    if (chatKind(conversationOf(chat)) !== 'personal')
      throw new SwitchboardError('PLATFORM_ERROR', 'Teams lets a bot send files only in personal chats.');
    if (file.bytes.length > TEAMS_MAX_UPLOAD_BYTES)
      throw new SwitchboardError(
        'FILE_TOO_LARGE',
        `${file.name} is larger than the ${TEAMS_MAX_UPLOAD_BYTES / 1024 / 1024} MiB the bot sends to Teams.`,
      );
    this.#prune();
    const id = randomUUID();
    const context = { upload: id };
    const sent = await this.ctx.outbound.sendActivity(chat, {
      type: 'message',
      ...(file.caption ? { text: file.caption, textFormat: 'plain' } : {}),
      attachments: [
        {
          contentType: FILE_CONSENT_CARD,
          name: file.name,
          content: {
            description: file.caption ?? file.name,
            sizeInBytes: file.bytes.length,
            acceptContext: context,
            declineContext: context,
          },
        },
      ],
    });
    this.#pending.set(id, { chat, file, at: this.ctx.clock.now() });
    return sent;
  }

  /** Answers a consent invoke at once; an accepted file is uploaded after. */
  onConsent(activity: TeamsActivity, chat: string): { status: number } {
    const value = (activity.value ?? {}) as ConsentValue;
    const id = typeof value.context?.upload === 'string' ? value.context.upload : '';
    const pending = this.#pending.get(id);
    this.#pending.delete(id);
    if (value.action !== 'accept') return { status: 200 };
    const info = value.uploadInfo;
    if (!pending || pending.chat !== chat || typeof info?.uploadUrl !== 'string') {
      void this.#say(chat, FILE_GONE);
      return { status: 200 };
    }
    void this.#upload(pending, info);
    return { status: 200 };
  }

  async #upload(pending: Pending, info: NonNullable<ConsentValue['uploadInfo']>): Promise<void> {
    const { file, chat } = pending;
    const size = file.bytes.length;
    try {
      const res = await fetch(String(info.uploadUrl), {
        method: 'PUT',
        // fetch sets Content-Length from the bytes itself. Setting it by hand breaks once another
        // package's undici becomes the process's dispatcher (Slack's Socket Mode loads one): that
        // copy refuses the header as Node's fetch hands it over, and every upload fails.
        headers: { 'content-range': `bytes 0-${Math.max(0, size - 1)}/${size}` },
        body: file.bytes,
        redirect: 'error',
        signal: AbortSignal.timeout(uploadDeadlineMs(this.ctx.timeoutMs ?? DEFAULT_UPLOAD_FLOOR_MS, size)),
      });
      await res.body?.cancel().catch(() => undefined);
      if (!res.ok) throw new Error(`the upload was answered with HTTP ${res.status}`);
      await this.ctx.outbound.sendActivity(chat, {
        type: 'message',
        attachments: [
          {
            contentType: FILE_INFO_CARD,
            contentUrl: String(info.contentUrl ?? ''),
            name: String(info.name ?? file.name),
            content: { uniqueId: String(info.uniqueId ?? ''), fileType: String(info.fileType ?? '') },
          },
        ],
      });
    } catch (err) {
      this.ctx.logger.warn({ err, chat }, 'could not upload a file to Teams');
      await this.#say(chat, `I could not upload ${file.name}; ask me to send it again.`);
    }
  }

  async #say(chat: string, text: string): Promise<void> {
    try {
      await this.ctx.outbound.send(chat, { text, format: plain });
    } catch (err) {
      this.ctx.logger.warn({ err, chat }, 'could not answer in a Teams chat');
    }
  }

  /** Forgets files nobody answered within the hour, and the oldest past the bound. */
  #prune(): void {
    const now = this.ctx.clock.now();
    for (const [id, p] of this.#pending) if (now - p.at > PENDING_MS) this.#pending.delete(id);
    while (this.#pending.size >= MAX_PENDING) {
      const oldest = this.#pending.keys().next().value;
      if (oldest === undefined) break;
      this.#pending.delete(oldest);
    }
  }
}

/** The least an upload is given, whatever the call timeout. */
const DEFAULT_UPLOAD_FLOOR_MS = 15_000;

/**
 * How long one upload may take: the call timeout plus a second per MiB. A
 * call's usual deadline is for a small request; 50 MiB on a slow link (or a
 * busy machine) needs longer, and cutting it off only makes the person ask
 * again for the same bytes.
 */
export function uploadDeadlineMs(callTimeoutMs: number, bytes: number): number {
  return Math.max(callTimeoutMs, DEFAULT_UPLOAD_FLOOR_MS) + Math.ceil(bytes / (1024 * 1024)) * 1000;
}
