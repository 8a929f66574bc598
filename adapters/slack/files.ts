/**
 * Files people share with the bot, in a thread or a DM. Images and documents
 * are downloaded (with the bot token, and only from Slack's own hosts or the
 * configured API host, so the token never goes elsewhere) within the bot's
 * file limit and handed to the core; audio clips and audio files get the
 * same download, called by the core only when it transcribes them; video is
 * described by kind so the core can say it cannot read it.
 */
import type { Attachment } from '../../src/bot/adapter-contract.js';
import { boundedDownload, declaredTooLarge, downloadProblem } from '../../src/download.js';
import type { Logger } from '../../src/logger.js';
import { declaredKind } from '../../src/media-type.js';

/** The fields of a Slack file object the adapter reads. */
export interface SlackFile {
  id?: string;
  /** `check_file_info`: the event carries only the id (a Slack Connect share); files.info has the rest. */
  file_access?: string;
  name?: string;
  mimetype?: string;
  size?: number;
  url_private?: string;
  url_private_download?: string;
  /** `slack_audio` for an audio clip recorded in Slack (served as audio/webm, audio/mp4 or even video/mp4). */
  subtype?: string;
  /** A clip's length in milliseconds (files.info's File: `duration_ms`). */
  duration_ms?: number;
}

/** Largest file downloaded when the adapter is given no limit (the bot's default, 20 MB). */
export const DEFAULT_MAX_FILE_BYTES = 20 * 1024 * 1024;
/** A stalled download must not hold up the chat's message for long. */
const DEFAULT_DOWNLOAD_TIMEOUT_MS = 30_000;

const SLACK_HOSTS = /(^|\.)(slack\.com|slack-edge\.com|slack-files\.com)$/;

/** Limits of {@link SlackFiles}, and how it completes a partial file object. */
export interface SlackFileLimits {
  maxFileBytes?: number;
  downloadTimeoutMs?: number;
  /** Calls files.info for a file id; the event's object is used as it is without it. */
  fileInfo?: (id: string) => Promise<SlackFile | undefined>;
}

/** Downloads Slack files the bot may read. */
export class SlackFiles {
  readonly #trustedOrigin: string | undefined;
  readonly #maxBytes: number;
  readonly #timeoutMs: number;
  readonly #fileInfo: SlackFileLimits['fileInfo'];

  constructor(
    private readonly token: string,
    apiUrl: string | undefined,
    private readonly logger: Logger,
    limits: SlackFileLimits = {},
  ) {
    this.#trustedOrigin = apiUrl ? new URL(apiUrl).origin : undefined;
    this.#maxBytes = limits.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.#timeoutMs = limits.downloadTimeoutMs ?? DEFAULT_DOWNLOAD_TIMEOUT_MS;
    this.#fileInfo = limits.fileInfo;
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

  /** Attachments for a message's files; images and documents carry their bytes or their problem. */
  async attachments(files: readonly SlackFile[]): Promise<Attachment[]> {
    return Promise.all(files.map((f) => this.#one(f)));
  }

  async #one(shared: SlackFile): Promise<Attachment> {
    const file = await this.#complete(shared);
    const mediaType = file.mimetype;
    // A clip is audio whatever type Slack serves it as (video/mp4 happens).
    const clip = file.subtype === 'slack_audio';
    const base: Attachment = {
      kind: clip ? 'audio' : declaredKind(mediaType),
      ...(mediaType ? { mediaType } : {}),
      ...(file.name ? { name: file.name } : {}),
      ...(file.size === undefined ? {} : { size: file.size }),
    };
    if (base.kind === 'audio') {
      const audio = {
        ...base,
        ...(file.duration_ms === undefined ? {} : { durationSeconds: file.duration_ms / 1000 }),
      };
      return { ...audio, download: () => this.#fetch(file, audio) };
    }
    if (base.kind !== 'image' && base.kind !== 'document') return base;
    return this.#fetch(file, base);
  }

  /** `base` with the file's bytes, or with the problem that kept them. */
  async #fetch(file: SlackFile, base: Attachment): Promise<Attachment> {
    const mediaType = file.mimetype;
    const declared = declaredTooLarge(file.size, this.#maxBytes);
    if (declared) return { ...base, ...declared };
    const url = file.url_private_download ?? file.url_private;
    if (!url || !this.trusted(url)) return { ...base, problem: 'download-failed' };
    try {
      const { bytes, contentType } = await boundedDownload(url, {
        maxBytes: this.#maxBytes,
        timeoutMs: this.#timeoutMs,
        headers: { authorization: `Bearer ${this.token}` },
        redirect: 'error',
      });
      // Without access (files:read missing) Slack answers 200 with its HTML login page, not the file.
      if (contentType.startsWith('text/html') && mediaType !== 'text/html') {
        this.logger.warn(
          { kind: base.kind },
          'Slack answered a file download with a web page; is files:read granted?',
        );
        return { ...base, problem: 'download-failed' };
      }
      return { ...base, bytes, size: bytes.length };
    } catch (err) {
      this.logger.warn({ err, kind: base.kind }, 'could not download a Slack file');
      return { ...base, ...downloadProblem(err) };
    }
  }

  /** The event's file object, or files.info's when the event left out what a download needs. */
  async #complete(file: SlackFile): Promise<SlackFile> {
    const partial =
      file.file_access === 'check_file_info' || !(file.url_private_download ?? file.url_private);
    if (!partial || !file.id || !this.#fileInfo) return file;
    try {
      return { ...file, ...(await this.#fileInfo(file.id)) };
    } catch (err) {
      this.logger.warn({ err }, 'files.info failed for a shared Slack file');
      return file;
    }
  }
}
