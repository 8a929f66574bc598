/**
 * Which audio containers a transcription endpoint takes, and the file name
 * extension each goes by. The OpenAI audio API reference (Create
 * transcription, `file`): "flac, mp3, mp4, mpeg, mpga, m4a, ogg, wav, or
 * webm", and the request must carry enough format metadata to recognise the
 * file, best a file name with its extension. The container is read from the
 * first bytes, because the platforms name voice notes loosely (Telegram's
 * `.oga`, Slack clips without an extension): the audio is sent as it came,
 * under the name its container goes by.
 */
import { hasSignature } from '../media-type.js';

/** A container the endpoint takes. */
export interface AudioFormat {
  /** The extension the API accepts, with its dot: `.ogg`. */
  extension: string;
  /** The media type sent with the file part. */
  mediaType: string;
}

/** The extensions the API reference lists, for messages. */
export const ACCEPTED_EXTENSIONS = [
  'flac',
  'mp3',
  'mp4',
  'mpeg',
  'mpga',
  'm4a',
  'ogg',
  'wav',
  'webm',
] as const;

const OGG: AudioFormat = { extension: '.ogg', mediaType: 'audio/ogg' };
const WEBM: AudioFormat = { extension: '.webm', mediaType: 'audio/webm' };
const M4A: AudioFormat = { extension: '.m4a', mediaType: 'audio/mp4' };
const MP3: AudioFormat = { extension: '.mp3', mediaType: 'audio/mpeg' };
const WAV: AudioFormat = { extension: '.wav', mediaType: 'audio/wav' };
const FLAC: AudioFormat = { extension: '.flac', mediaType: 'audio/flac' };

/** An MPEG audio frame header: eleven sync bits, then a layer that is not "reserved". */
function mpegFrame(bytes: Uint8Array): boolean {
  const [a, b] = [bytes[0], bytes[1]];
  return a === 0xff && b !== undefined && (b & 0xe0) === 0xe0 && (b & 0x06) !== 0;
}

/**
 * The container `bytes` hold, read from their first bytes: Ogg (Opus or
 * Vorbis voice notes), WebM/Matroska, MP4/M4A, MP3, WAV, FLAC; undefined for
 * anything else (an AMR or CAF recording the endpoint would refuse).
 */
export function audioFormat(bytes: Uint8Array): AudioFormat | undefined {
  if (hasSignature(bytes, 'OggS')) return OGG;
  if (hasSignature(bytes, '\x1a\x45\xdf\xa3')) return WEBM;
  if (hasSignature(bytes, 'ftyp', 4)) return M4A;
  if (hasSignature(bytes, 'ID3') || mpegFrame(bytes)) return MP3;
  if (hasSignature(bytes, 'RIFF') && hasSignature(bytes, 'WAVE', 8)) return WAV;
  if (hasSignature(bytes, 'fLaC')) return FLAC;
  return undefined;
}

/**
 * The name the file is sent under: the sender's stem (letters, digits, `-`
 * and `_` only; it is a stranger's text) with the container's extension,
 * `voice.oga` -> `voice.ogg`.
 */
export function uploadName(name: string | undefined, format: AudioFormat): string {
  const last = (name ?? '').split(/[/\\]/).at(-1) ?? '';
  const stem = last
    .replace(/\.[^.]*$/, '')
    .replace(/[^\p{L}\p{N}_-]+/gu, '_')
    .slice(0, 64);
  return `${stem.replace(/^_+|_+$/g, '') || 'audio'}${format.extension}`;
}
