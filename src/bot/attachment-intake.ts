/**
 * What a message's attachments become before it is queued: the images and
 * documents that arrived whole go to the session as files (it saves them and
 * shows the model what it can read); a file too large or whose download
 * failed is left out with a line naming it and the limit; audio waits for
 * its turn to be transcribed when the bot has a transcription service (a
 * voice note longer than the limit is answered now and never fetched);
 * video, stickers and the like, and audio when nothing transcribes it, get
 * the one line that says they cannot be read. The message's text runs even
 * when a file was left out, and the line says so: a person who wrote a
 * question expects an answer to it.
 */
import { shownName } from '../session/index.js';
import type { Attachment } from './adapter-contract.js';
import { say } from './text.js';

/** The files for the session, the audio to transcribe, and the lines for the chat. */
export interface Intake {
  files: Attachment[];
  /** Recordings to transcribe before the turn (with their bytes or a `download`). */
  audio: Attachment[];
  answers: string[];
}

/** How the bot hears audio, as the intake needs it. */
export interface AudioIntake {
  /** A transcription service is set. */
  on: boolean;
  /** Longest recording taken, in seconds. */
  maxSeconds: number;
  /** The sender is an admin (who is told how to turn transcription on). */
  admin: boolean;
}

const NO_AUDIO: AudioIntake = { on: false, maxSeconds: 0, admin: false };

/** Sorts a message's attachments; `hasText`: the message has words of its own that will run. */
export function takeAttachments(
  attachments: readonly Attachment[],
  hasText: boolean,
  hearing: AudioIntake = NO_AUDIO,
): Intake {
  const files: Attachment[] = [];
  const audio: Attachment[] = [];
  const left: Attachment[] = [];
  const tooLong: Attachment[] = [];
  const unreadable: Attachment[] = [];
  for (const a of attachments) {
    if (a.kind === 'audio' && hearing.on && (a.bytes || a.download)) {
      const over = a.durationSeconds !== undefined && a.durationSeconds > hearing.maxSeconds;
      (over ? tooLong : audio).push(a);
      continue;
    }
    if (a.kind !== undefined && a.kind !== 'image' && a.kind !== 'document') {
      unreadable.push(a);
      continue;
    }
    const bytes = a.bytes ?? (a.data ? Buffer.from(a.data, 'base64') : undefined);
    if (bytes && a.problem === undefined) {
      files.push({
        bytes,
        ...(a.name ? { name: a.name } : {}),
        ...(a.mediaType ? { mediaType: a.mediaType } : {}),
      });
    } else {
      left.push(a);
    }
  }
  const runs = hasText || files.length > 0;
  const answers = left.map((a) => {
    const name = a.name ? shownName(a.name) : a.kind === 'image' ? 'that image' : 'that file';
    return a.problem === 'too-large' && a.limitBytes !== undefined
      ? say.fileTooLarge(name, a.limitBytes, runs)
      : say.fileFailed(name, runs);
  });
  for (const a of tooLong) answers.push(say.voiceTooLong(a.durationSeconds ?? 0, hearing.maxSeconds, runs));
  if (unreadable.length > 0) {
    const hint = hearing.admin && !hearing.on && unreadable.some((a) => a.kind === 'audio');
    answers.push(say.unreadable(unreadable) + (hint ? say.transcribeHint : ''));
  }
  return { files, audio, answers };
}
