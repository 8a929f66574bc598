/**
 * What a message's attachments become before it is queued: the images and
 * documents that arrived whole go to the session as files (it saves them and
 * shows the model what it can read); a file too large or whose download
 * failed is left out with a line naming it and the limit; voice, video,
 * stickers and the like get the one line that says they cannot be read.
 * The message's text runs even when a file was left out, and the line says
 * so: a person who wrote a question expects an answer to it.
 */
import type { IncomingFile } from '../session/index.js';
import { shownName } from '../session/index.js';
import type { Attachment } from './adapter-contract.js';
import { say } from './text.js';

/** The files for the session and the lines for the chat. */
export interface Intake {
  files: IncomingFile[];
  answers: string[];
}

/** Sorts a message's attachments; `hasText`: the message has words of its own that will run. */
export function takeAttachments(attachments: readonly Attachment[], hasText: boolean): Intake {
  const files: IncomingFile[] = [];
  const left: Attachment[] = [];
  const unreadable: Attachment[] = [];
  for (const a of attachments) {
    if (a.kind !== 'image' && a.kind !== 'document') {
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
  if (unreadable.length > 0) answers.push(say.unreadable(unreadable));
  return { files, answers };
}
