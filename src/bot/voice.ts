/**
 * Voice notes in. When its turn comes, a message's recordings are fetched
 * (the adapter's bounded download, only now that they will be heard),
 * measured when the platform did not say how long they are (a longer one
 * than the limit goes no further), transcribed, and shown in the chat as what the bot heard (`🎙 "…"`, before
 * the reply) so the person can see it; the model gets the transcript as the
 * person's message, after any caption, marked as spoken. A recording that
 * cannot be fetched or heard, or holds no words, is said plainly, and the
 * message runs only if it has anything else. The audio is never logged; it
 * is kept in the workspace's `uploads/` like any file unless the bot is set
 * not to keep it.
 */
import { describeError, SwitchboardError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { InteractiveSession } from '../session/index.js';
import { audioFormat, audioSeconds, type Transcriber, uploadName } from '../transcribe/index.js';
import type { Attachment } from './adapter-contract.js';
import type { QueuedMessage } from './queued-message.js';
import type { Outbox } from './stream/types.js';
import { MAX_INPUT_CHARS, say } from './text.js';

/** How the bot hears voice notes ({@link BotOptions.voice}). */
export interface VoiceOptions {
  /** The speech-to-text service. */
  transcriber: Transcriber;
  /** Longest recording transcribed, in seconds; checked before the download where the platform says. Default 600. */
  maxSeconds?: number;
  /** Save each recording in the workspace's `uploads/`, like any file (default true). */
  keepAudio?: boolean;
  /** US dollars per minute of audio: `/cost` prices the minutes transcribed with it. */
  pricePerMinute?: number;
}

/** Default of {@link VoiceOptions.maxSeconds}: ten minutes. */
export const DEFAULT_MAX_AUDIO_SECONDS = 600;

/** What {@link hearVoice} works with. */
export interface HearingContext {
  chat: string;
  item: QueuedMessage;
  voice: VoiceOptions;
  /** The chat's session: transcriptions go into its usage ledger. */
  session: InteractiveSession;
  outbox: Outbox;
  logger: Logger;
  /** Fires when the person stops the turn: nothing more is fetched, heard or said. */
  signal: AbortSignal;
}

/** Marks a transcript for the model: spoken, machine-heard, possibly misheard. */
const SPOKEN = '[Voice note, transcribed by speech recognition; words may be misheard:]';

/**
 * The message as it runs, with what was heard in its text (and the
 * recordings among its files when kept); undefined when nothing is left to
 * run or the turn was stopped.
 */
export async function hearVoice(ctx: HearingContext): Promise<QueuedMessage | undefined> {
  const { item, voice, signal } = ctx;
  const ran = item.text.trim().length > 0 || item.files.length > 0;
  const heard: string[] = [];
  const kept: Attachment[] = [];
  for (const pending of item.audio ?? []) {
    const audio =
      pending.bytes || !pending.download
        ? pending
        : await pending.download().catch((): Attachment => ({ ...pending, problem: 'download-failed' }));
    if (signal.aborted) return undefined;
    if (!audio.bytes || audio.problem) {
      await tell(ctx, fetchProblem(audio, ran));
      continue;
    }
    // The platform said nothing of its length: read it from the file before it goes anywhere.
    const seconds = audio.durationSeconds ?? (await audioSeconds(audio.bytes));
    const maxSeconds = voice.maxSeconds ?? DEFAULT_MAX_AUDIO_SECONDS;
    if (seconds !== undefined && seconds > maxSeconds) {
      await tell(ctx, say.voiceTooLong(seconds, maxSeconds, ran));
      continue;
    }
    try {
      const transcript = await voice.transcriber.transcribe(
        { bytes: audio.bytes, ...(audio.name ? { name: audio.name } : {}) },
        { signal },
      );
      ctx.session.recordTranscription(voice.transcriber.model, seconds ?? transcript.seconds ?? 0);
      if (!transcript.text) {
        await tell(ctx, say.voiceEmpty(ran));
        continue;
      }
      heard.push(transcript.text);
      await tell(ctx, say.heard(transcript.text));
      if (voice.keepAudio ?? true) kept.push(recording(audio, audio.bytes));
    } catch (err) {
      if (signal.aborted) return undefined;
      const detail = err instanceof SwitchboardError ? err.detail : {};
      // The reason and status only: never the audio, and the transcript is the person's.
      ctx.logger.warn(
        { chat: ctx.chat, reason: detail.reason, status: detail.status },
        'a voice note could not be transcribed',
      );
      await tell(
        ctx,
        say.voiceFailed(err instanceof SwitchboardError ? err.message : 'something went wrong', ran),
      );
    }
  }
  if (heard.length === 0 && !ran) return undefined;
  const text = [item.text.trim() ? item.text : '', ...heard.map((t) => `${SPOKEN}\n${t}`)]
    .filter((part) => part.length > 0)
    .join('\n\n');
  // A long recording can say more than one message may hold: the same answer as typed text gets.
  if (text.length > MAX_INPUT_CHARS) {
    await tell(ctx, say.tooLong(text.length));
    return undefined;
  }
  return { ...item, text, files: [...item.files, ...kept], audio: [] };
}

/** The line for a recording that could not be fetched. */
function fetchProblem(audio: Attachment, ran: boolean): string {
  return audio.problem === 'too-large' && audio.limitBytes !== undefined
    ? say.fileTooLarge('that voice note', audio.limitBytes, ran)
    : say.fileFailed('that voice note', ran);
}

/** The recording as a file for the workspace, named for its container (`voice.oga` is saved as `voice.ogg`). */
function recording(audio: Attachment, bytes: Uint8Array): Attachment {
  const format = audioFormat(bytes);
  return {
    bytes,
    name: format ? uploadName(audio.name ?? 'voice-note', format) : (audio.name ?? 'voice-note'),
    ...(format ? { mediaType: format.mediaType } : audio.mediaType ? { mediaType: audio.mediaType } : {}),
  };
}

/** Says a line in the chat, in reply to the voice note, before the reply; a failed send is logged. */
async function tell(ctx: HearingContext, text: string): Promise<void> {
  try {
    await ctx.outbox.send(ctx.chat, text, { plain: true, replyTo: ctx.item.messageId });
  } catch (err) {
    ctx.logger.error({ chat: ctx.chat, err: describeError(err) }, 'could not send a message');
  }
}
