/** Speech to text through an OpenAI-compatible transcription endpoint. */
export {
  type AudioInput,
  createTranscriber,
  DEFAULT_TRANSCRIBE_TIMEOUT_MS,
  type Transcriber,
  type TranscriberOptions,
  type Transcript,
} from './client.js';
export { ACCEPTED_EXTENSIONS, type AudioFormat, audioFormat, uploadName } from './formats.js';
export { audioSeconds } from './length.js';
