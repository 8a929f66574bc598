/**
 * Files people share with the bot. Images are downloaded (with the bot token,
 * and only from Slack's own hosts or the configured API host, so the token
 * never goes elsewhere) and handed to the model; other files are described
 * so the core can say it cannot read them.
 */
import type { Attachment } from '../../src/bot/adapter-contract.js';
import { boundedDownload } from '../../src/download.js';
import type { Logger } from '../../src/logger.js';

/** The fields of a Slack file object the adapter reads. */
export interface SlackFile {
  name?: string;
  mimetype?: string;
  size?: number;
  url_private?: string;
  url_private_download?: string;
}

/** Image types the model reads. */
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
/** The model's image size limit. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** A stalled download must not hold up the chat's message for long. */
const DOWNLOAD_TIMEOUT_MS = 30_000;

const SLACK_HOSTS = /(^|\.)(slack\.com|slack-edge\.com|slack-files\.com)$/;

/** Downloads Slack files the bot may read. */
export class SlackFiles {
  readonly #trustedOrigin: string | undefined;

  constructor(
    private readonly token: string,
    apiUrl: string | undefined,
    private readonly logger: Logger,
  ) {
    this.#trustedOrigin = apiUrl ? new URL(apiUrl).origin : undefined;
  }

  /** True when the bot token may be sent to `url`. */
  trusted(url: string): boolean {
    try {
      const u = new URL(url);
      if (this.#trustedOrigin && u.origin === this.#trustedOrigin) return true;
      return u.protocol === 'https:' && SLACK_HOSTS.test(u.hostname);
    } catch {
      return false;
    }
  }

  /** Attachments for a message's files; images carry their data when the download worked. */
  async attachments(files: readonly SlackFile[]): Promise<Attachment[]> {
    return Promise.all(files.map((f) => this.#one(f)));
  }

  async #one(file: SlackFile): Promise<Attachment> {
    const mediaType = file.mimetype;
    const base: Attachment = {
      kind: mediaType?.startsWith('image/') ? 'image' : 'document',
      ...(mediaType ? { mediaType } : {}),
      ...(file.name ? { name: file.name } : {}),
    };
    const url = file.url_private_download ?? file.url_private;
    if (base.kind !== 'image' || !mediaType || !IMAGE_TYPES.has(mediaType) || !url) return base;
    if ((file.size ?? 0) > MAX_IMAGE_BYTES || !this.trusted(url)) return base;
    try {
      const { bytes, contentType } = await boundedDownload(url, {
        maxBytes: MAX_IMAGE_BYTES,
        timeoutMs: DOWNLOAD_TIMEOUT_MS,
        headers: { authorization: `Bearer ${this.token}` },
        redirect: 'error',
      });
      // Without access Slack answers 200 with its HTML login page, not the file.
      if (!contentType.startsWith('image/')) return base;
      return { ...base, data: bytes.toString('base64') };
    } catch (err) {
      this.logger.warn({ err, file: file.name }, 'could not download a Slack image');
      return base;
    }
  }
}
