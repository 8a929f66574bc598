/**
 * Files a person sent with a message. Each is saved into the session's
 * workspace under `uploads/` (a safe, unique name: see file-names.ts),
 * written through the sandbox helper, which creates it exclusively and
 * resolves the folder where it writes, so a link the agent planted in the
 * workspace cannot redirect it. The model is told what arrived and where, and
 * sees what it can read: images as images and PDFs as documents within the
 * API's limits, UTF-8 text as text when it fits. Anything else or larger
 * stays in the workspace for the tools, and the note says so.
 */
import type { Clock } from '../clock.js';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import type { SandboxTurn } from '../sandbox/turn.js';
import type { Attachment, ContentBlock, HistoryMessage } from '../vocabulary.js';
import {
  type FileKind,
  fileKind,
  MAX_MEDIA_BASE64_PER_REQUEST,
  MAX_PDF_PAGES_PER_REQUEST,
  pdfPages,
} from './file-kinds.js';
import { candidateNames, shownName, UPLOADS_DIR } from './file-names.js';
import { type SubmitInput, userMessage } from './history.js';
import { imageProblem } from './images.js';
import type { TurnState } from './turn.js';

/** Longest text file shown to the model whole, in characters. */
export const MAX_TEXT_FILE_CHARS = 100_000;
/** A text file shown whole takes at most this share of the context window (about 4 characters a token). */
const TEXT_SHARE_OF_WINDOW = 0.1;

/** What {@link fileBlocks} needs from the session. */
export interface IntakeContext {
  cwd: string;
  clock: Clock;
  logger: Logger;
  sandbox: Sandbox;
  /** The conversation so far: the images and PDFs it already sends count against the request's limits. */
  history: readonly HistoryMessage[];
  /** The model's context window in tokens. */
  contextWindow: number;
}

/** Media already in the requests: base64 characters and PDF pages. */
function mediaInUse(history: readonly HistoryMessage[]): { base64: number; pages: number } {
  let base64 = 0;
  let pages = 0;
  for (const m of history) {
    for (const b of m.content) {
      if (b.type === 'image') base64 += b.data.length;
      if (b.type === 'document') {
        base64 += b.data.length;
        pages += pdfPages(Buffer.from(b.data, 'base64'));
      }
    }
  }
  return { base64, pages };
}

const kb = (bytes: number) =>
  bytes < 1024 * 1024
    ? `${Math.max(1, Math.round(bytes / 1024))} KB`
    : `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

/**
 * Saves every file and returns the blocks that tell the model about them
 * (a note per file, then what it can read of it), and one sentence per
 * file that could not be saved, for the chat.
 */
export async function fileBlocks(
  files: readonly Attachment[],
  ctx: IntakeContext,
): Promise<{ blocks: ContentBlock[]; refused: string[] }> {
  const blocks: ContentBlock[] = [];
  const refused: string[] = [];
  const inUse = mediaInUse(ctx.history);
  const date = new Date(ctx.clock.now()).toISOString().slice(0, 10);
  const turn = ctx.sandbox.openTurn(ctx.cwd, ctx.clock);
  try {
    for (const given of files) {
      const name = shownName(given.name);
      const bytes = given.bytes ?? (given.data ? Buffer.from(given.data, 'base64') : undefined);
      if (!bytes) {
        // A platform's attachment that was never downloaded: there is nothing to save or show.
        refused.push(`${name} came without its content, so it was not saved; send it again.`);
        continue;
      }
      const file = { ...given, bytes };
      const kind = fileKind(file.bytes);
      const extension = EXTENSIONS[kind.kind === 'image' ? kind.mediaType : kind.kind];
      // Encoded once: the helper takes the file as base64, and so does the model for an image or a PDF.
      const data = Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength).toString(
        'base64',
      );
      const saved = await save(turn, file.name, data, date, extension).catch((err: unknown) => {
        ctx.logger.warn(
          { err: describeError(err), size: file.bytes.length },
          'a received file could not be saved',
        );
        refused.push(`${name} could not be saved in the workspace; the model was told.`);
        return undefined;
      });
      if (saved) ctx.logger.info({ path: saved, size: file.bytes.length }, 'received file saved');
      blocks.push(...describe(file, data, kind, name, saved, inUse, ctx.contextWindow));
    }
  } finally {
    await turn.close();
  }
  return { blocks, refused };
}

/** The extension a file without one is saved with, by what its content is. */
const EXTENSIONS: Record<string, string> = {
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'image/gif': '.gif',
  'image/webp': '.webp',
  pdf: '.pdf',
  text: '.txt',
};

async function save(
  turn: SandboxTurn,
  name: string | undefined,
  data: string,
  date: string,
  extension?: string,
): Promise<string> {
  const names = candidateNames(name, date, extension);
  const { shown } = await turn.request<{ shown: string }>('saveNew', { dir: UPLOADS_DIR, names, data });
  return shown;
}

/** The note and the readable content of one file (`data`: its bytes as base64); counts what it adds to `inUse`. */
function describe(
  file: Attachment & { bytes: Uint8Array },
  data: string,
  kind: FileKind,
  name: string,
  saved: string | undefined,
  inUse: { base64: number; pages: number },
  contextWindow: number,
): ContentBlock[] {
  const fallback = kind.kind === 'text' ? 'text' : 'unknown type';
  const type =
    kind.kind === 'image'
      ? kind.mediaType
      : kind.kind === 'pdf'
        ? 'application/pdf'
        : declared(file, fallback);
  const where = saved ? `saved as ${saved}` : 'not saved (the workspace refused it)';
  const head = `File received: ${name} (${kb(file.bytes.length)}, ${type}), ${where}.`;
  const note = (rest: string): ContentBlock => ({ type: 'text', text: `[${head} ${rest}]` });
  const tools = saved ? 'use your tools on it' : 'ask for it to be sent again';
  const fitsRequest = inUse.base64 + data.length <= MAX_MEDIA_BASE64_PER_REQUEST;
  switch (kind.kind) {
    case 'image': {
      const problem = imageProblem(kind.mediaType, data);
      if (problem) return [note(`It is not shown to you: ${problem}. To look at it, ${tools}.`)];
      if (!fitsRequest)
        return [
          note(
            `It is not shown to you: the conversation already carries as many images and PDFs as one request takes. ${tools}.`,
          ),
        ];
      inUse.base64 += data.length;
      return [note('It follows.'), { type: 'image', mediaType: kind.mediaType, data }];
    }
    case 'pdf': {
      if (kind.encrypted) return [note(`It is encrypted, so it is not shown to you; ${tools}.`)];
      if (inUse.pages + kind.pages > MAX_PDF_PAGES_PER_REQUEST || !fitsRequest)
        return [
          note(
            `It has ${kind.pages} pages; with the PDFs already in this conversation that is more than one request takes (${MAX_PDF_PAGES_PER_REQUEST} pages, 32 MB), so it is not shown to you: ${tools} (pdftotext, if installed).`,
          ),
        ];
      inUse.pages += kind.pages;
      inUse.base64 += data.length;
      const title = file.name?.replace(/\p{Cc}|\p{Cf}/gu, '').slice(0, 200);
      return [
        note(`Its ${kind.pages} page(s) follow.`),
        { type: 'document', mediaType: 'application/pdf', data, ...(title ? { title } : {}) },
      ];
    }
    case 'text': {
      const limit = Math.min(MAX_TEXT_FILE_CHARS, Math.floor(contextWindow * 4 * TEXT_SHARE_OF_WINDOW));
      if (kind.text.length > limit)
        return [
          note(
            `It is ${kind.text.length.toLocaleString('en-US')} characters of text, more than the ${limit.toLocaleString('en-US')} shown at once, so it is not shown to you: read it in parts (Read with an offset, Grep).`,
          ),
        ];
      return [
        note('Its text follows.'),
        { type: 'text', text: kind.text.length > 0 ? kind.text : '(empty file)' },
      ];
    }
    case 'binary':
      return [
        note(
          `It is not text, an image or a PDF, so it is not shown to you; ${tools} (archives are not unpacked for you).`,
        ),
      ];
  }
}

/** The platform's media type when it looks like one, else `fallback`. */
function declared(file: Attachment, fallback: string): string {
  const type = file.mediaType?.split(';')[0]?.trim() ?? '';
  return /^[\w.+-]{1,64}\/[\w.+-]{1,64}$/.test(type) ? type : fallback;
}

/**
 * The user message for a submission, with its files saved into the turn's
 * workspace and described (see {@link fileBlocks}); `refused` holds the
 * sentences for the chat.
 */
export async function promptFor(
  input: SubmitInput,
  state: Pick<TurnState, 'history' | 'tools' | 'meter'>,
  sandbox: Sandbox,
): Promise<{ message: HistoryMessage; refused: string[] }> {
  const { clock, logger, cwd } = state.tools;
  const built = userMessage(input, clock);
  const files = typeof input === 'string' ? [] : (input.files ?? []);
  if (files.length === 0) return built;
  const contextWindow = state.meter.tracker.getState().maxTokens;
  const ctx = { cwd, clock, logger, sandbox, history: state.history, contextWindow };
  const { blocks, refused } = await fileBlocks(files, ctx);
  // Files first, the person's words last: the long-context tips put documents before the question.
  built.message.content.unshift(...blocks);
  return { message: built.message, refused: [...built.refused, ...refused] };
}
