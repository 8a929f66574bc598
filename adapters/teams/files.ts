/**
 * Files people send the bot. Teams attaches them two ways ("Send and
 * receive files with a bot",
 * https://learn.microsoft.com/en-us/microsoftteams/platform/bots/how-to/bots-filesv4):
 *
 * - a file from a personal chat arrives as a
 *   `application/vnd.microsoft.teams.file.download.info` attachment whose
 *   `content.downloadUrl` is a short-lived pre-authenticated link: fetched
 *   as it is, with no token;
 * - an inline image (pasted or photographed) is an `image/*` attachment
 *   whose `contentUrl` is on the Bot Connector and needs the bot's token:
 *   the token is sent only when that URL is on the conversation's own
 *   serviceUrl host or a Microsoft host, never to anyone else.
 *
 * The `text/html` copy of the message and cards are not files. Everything
 * is downloaded within the bot's file limit through `boundedDownload`.
 */
import type { Attachment } from '../../src/bot/adapter-contract.js';
import type { Clock } from '../../src/clock.js';
import { boundedDownload, downloadProblem } from '../../src/download.js';
import type { Logger } from '../../src/logger.js';
import { declaredKind } from '../../src/media-type.js';
import type { TeamsActivity } from './inbound.js';

/** The content type of a file a person shared with the bot. */
export const FILE_DOWNLOAD_INFO = 'application/vnd.microsoft.teams.file.download.info';

/** One file to fetch, read from an activity. */
export interface TeamsFileLink {
  kind: NonNullable<Attachment['kind']>;
  name?: string;
  mediaType?: string;
  /** Where its bytes are; absent for a kind the core only names (audio, video). */
  url?: string;
  /** The URL wants the bot's token. */
  withToken: boolean;
}

const IMAGE_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};

/** A host the bot's token may go to: the conversation's Bot Connector, or Microsoft's own. */
export function tokenHostAllowed(url: string, serviceUrl: string | undefined): boolean {
  try {
    const host = new URL(url).host.toLowerCase();
    if (serviceUrl && host === new URL(serviceUrl).host.toLowerCase()) return true;
    return /(^|\.)(skype\.com|teams\.microsoft\.com|botframework\.com|trafficmanager\.net)$/.test(
      host.replace(/:\d+$/, ''),
    );
  } catch {
    return false;
  }
}

/** The files of an activity, in order; anything else attached is left out. */
export function incomingFiles(activity: TeamsActivity): TeamsFileLink[] {
  const files: TeamsFileLink[] = [];
  for (const a of activity.attachments ?? []) {
    const type = (a.contentType ?? '').toLowerCase();
    if (type === FILE_DOWNLOAD_INFO) {
      const content = (a.content ?? {}) as { downloadUrl?: unknown; fileType?: unknown };
      if (typeof content.downloadUrl !== 'string') continue;
      const ext = typeof content.fileType === 'string' ? content.fileType.toLowerCase() : '';
      const mediaType = IMAGE_TYPES[ext];
      files.push({
        kind: mediaType ? 'image' : 'document',
        ...(a.name ? { name: a.name } : {}),
        ...(mediaType ? { mediaType } : {}),
        url: content.downloadUrl,
        withToken: false,
      });
    } else if (type.startsWith('image/') && a.contentUrl) {
      files.push({
        kind: 'image',
        ...(a.name ? { name: a.name } : {}),
        mediaType: type,
        url: a.contentUrl,
        withToken: tokenHostAllowed(a.contentUrl, activity.serviceUrl),
      });
    } else if ((type.startsWith('audio/') || type.startsWith('video/')) && a.contentUrl) {
      // Voice and video clips: described by kind only; the core answers with one line.
      files.push({
        kind: declaredKind(type),
        ...(a.name ? { name: a.name } : {}),
        mediaType: type,
        withToken: false,
      });
    }
  }
  return files;
}

/** Limits and wiring of {@link downloadFiles}. */
export interface DownloadContext {
  maxFileBytes: number;
  timeoutMs: number;
  clock: Clock;
  logger: Logger;
  token: () => Promise<string>;
}

/** Each file as the core's attachment, with its bytes or the problem that kept them. */
export async function downloadFiles(files: TeamsFileLink[], ctx: DownloadContext): Promise<Attachment[]> {
  return Promise.all(
    files.map(async (file): Promise<Attachment> => {
      const base: Attachment = {
        kind: file.kind,
        ...(file.name ? { name: file.name } : {}),
        ...(file.mediaType ? { mediaType: file.mediaType } : {}),
      };
      const url = file.url;
      if ((file.kind !== 'image' && file.kind !== 'document') || !url) return base;
      try {
        const headers = file.withToken ? { authorization: `Bearer ${await ctx.token()}` } : undefined;
        const { bytes, contentType } = await boundedDownload(url, {
          maxBytes: ctx.maxFileBytes,
          timeoutMs: ctx.timeoutMs,
          clock: ctx.clock,
          // A token must not follow a redirect to another host.
          ...(headers ? { headers, redirect: 'error' as const } : {}),
        });
        const mediaType = file.mediaType ?? (contentType.split(';')[0]?.trim() || undefined);
        return { ...base, ...(mediaType ? { mediaType } : {}), bytes, size: bytes.length };
      } catch (err) {
        ctx.logger.warn({ err, kind: file.kind }, 'could not download a Teams attachment');
        return { ...base, ...downloadProblem(err) };
      }
    }),
  );
}
