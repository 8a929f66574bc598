/**
 * How long a recording is, read from its container (music-metadata parses
 * Ogg, WebM, MP4, MP3, WAV and FLAC headers and frames), for audio whose
 * platform did not say: an audio file shared on Discord or Slack, a path in
 * the terminal chat. It keeps a long file from reaching a paid endpoint and
 * gives the usage ledger its minutes when the endpoint bills by tokens.
 */
import { parseBuffer } from 'music-metadata';

/** The recording's length in seconds, or undefined when its container does not tell. */
export async function audioSeconds(bytes: Uint8Array): Promise<number | undefined> {
  try {
    const { format } = await parseBuffer(bytes, undefined, { duration: true, skipCovers: true });
    const seconds = format.duration;
    return seconds !== undefined && Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
  } catch {
    // A file it cannot parse: the length stays unknown, and the endpoint judges the file.
    return undefined;
  }
}
