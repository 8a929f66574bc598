/**
 * A recording in the terminal chat: the operator types (or drops) the path
 * of an audio file on this machine, and it goes to the bot as a voice note.
 * A line is taken as one only when all of it is a path (quotes and
 * backslash-escaped spaces, as terminals paste dropped files, are undone)
 * whose extension is an audio format and which names an existing file;
 * anything else stays text. The file is read only if the core transcribes
 * it, and never past the size limit.
 */
import { readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, resolve } from 'node:path';
import type { Attachment } from '../../src/bot/adapter-contract.js';

/** Extensions read as audio: what transcription endpoints take, plus Telegram's `.oga` and `.opus`. */
const AUDIO = /\.(flac|mp3|mp4|mpeg|mpga|m4a|ogg|oga|opus|wav|webm)$/i;

/** Largest recording read, in bytes: the OpenAI transcription API takes files up to 25 MB. */
export const MAX_AUDIO_FILE_BYTES = 25 * 1024 * 1024;

/** The path a line names: surrounding quotes and `\ ` escapes undone, `~` expanded. */
function pathOf(line: string): string {
  const unquoted = /^(['"])(.*)\1$/.exec(line)?.[2] ?? line.replace(/\\ /g, ' ');
  return unquoted.startsWith('~/') ? `${homedir()}${unquoted.slice(1)}` : unquoted;
}

/**
 * The audio attachment a typed line names, or undefined when the line is
 * not the path of an existing audio file. `cwd` resolves relative paths.
 */
export async function audioAttachment(
  line: string,
  cwd: string,
  maxBytes = MAX_AUDIO_FILE_BYTES,
): Promise<Attachment | undefined> {
  const path = resolve(cwd, pathOf(line));
  if (!AUDIO.test(path)) return undefined;
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile()) return undefined;
  const audio: Attachment = { kind: 'audio', name: basename(path), size: info.size };
  const download = async (): Promise<Attachment> => {
    if (info.size > maxBytes) return { ...audio, problem: 'too-large', limitBytes: maxBytes };
    try {
      const bytes = await readFile(path);
      return bytes.length > maxBytes
        ? { ...audio, problem: 'too-large', limitBytes: maxBytes }
        : { ...audio, bytes, size: bytes.length };
    } catch {
      return { ...audio, problem: 'download-failed' };
    }
  };
  return { ...audio, download };
}
