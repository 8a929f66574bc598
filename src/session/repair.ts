/**
 * Repairs a history the API refused, so one bad block never locks a session
 * until /new: an image over the limits or a block the API names is replaced
 * by a short note, thinking the API will not take back is dropped, and old
 * tool output is trimmed when the request is too long (the conversation is
 * compacted when nothing is left to trim). Each repair says, in a sentence
 * for the chat, what it dropped.
 */
import type { SwitchboardError } from '../errors.js';
import type { BadContentDetail } from '../provider/errors.js';
import { toProviderMessages } from './history.js';
import { imageProblem } from './images.js';
import type { ContentBlock, HistoryMessage } from './types.js';

/** Tool output longer than this, outside the newest exchanges, is trimmed first when a request is too long. */
export const TRIM_TOOL_RESULT_CHARS = 2_000;
/** The newest messages are left whole: the model is working on them. */
const KEEP_NEWEST = 4;

type Block = ContentBlock;

/**
 * Replaces `block` where it is; returns the index of its message, or -1.
 * Whatever follows an edited message was thought against the old text: the
 * caller drops the thinking after it ({@link dropThinkingFrom}).
 */
function replaceBlock(history: HistoryMessage[], block: Block, replacement: Block): number {
  for (const [index, message] of history.entries()) {
    const at = message.content.indexOf(block);
    if (at >= 0) {
      message.content = message.content.map((b, i) => (i === at ? replacement : b));
      return index;
    }
  }
  return -1;
}

/**
 * Removes the thinking of every assistant message from `index` on (Prefix
 * checks on thinking blocks page: after a change, removing only the block
 * the 400 names is not enough — every kept turn after the change loses its
 * thinking, or the next turns fail one after another). Returns how many
 * blocks went.
 */
function dropThinkingFrom(history: HistoryMessage[], index: number): number {
  if (index < 0) return 0;
  let dropped = 0;
  for (const message of history.slice(index)) {
    if (message.role !== 'assistant') continue;
    const kept = message.content.filter((b) => b.type !== 'thinking' && b.type !== 'redacted_thinking');
    dropped += message.content.length - kept.length;
    message.content = kept;
  }
  return dropped;
}

/** The first of `indexes` (history positions of edited messages), or -1 when none. */
const earliest = (indexes: number[]) => {
  const found = indexes.filter((i) => i >= 0);
  return found.length > 0 ? Math.min(...found) : -1;
};

/** The history block a 400 points at (`messages.N.content.M` of the request that was sent). */
function located(
  history: readonly HistoryMessage[],
  model: string,
  detail: BadContentDetail,
): Block | undefined {
  if (detail.messageIndex === undefined || detail.blockIndex === undefined) return undefined;
  // The request's blocks are the history's own objects, so the one the API names can be found again.
  return toProviderMessages(history, model)[detail.messageIndex]?.content[detail.blockIndex];
}

function note(block: Block, why: string): Block {
  if (block.type === 'tool_result') {
    // The note replaces the result whole: a picture inside it may be what the API refused.
    const { images: _images, ...rest } = block;
    return { ...rest, content: `[${why}]`, isError: true };
  }
  // The PDF was saved when it arrived: the model can still reach it with its tools.
  if (block.type === 'document')
    return { type: 'text', text: `[a PDF the API refused was removed; the file is still in the workspace]` };
  if (block.type === 'tool_use') return { ...block, input: {} };
  return { type: 'text', text: `[${why}]` };
}

function dropImages(history: HistoryMessage[], target: Block | undefined): number {
  const images = history.flatMap((m) => m.content.filter((b) => b.type === 'image'));
  const bad =
    target?.type === 'image'
      ? [target]
      : images.filter((b) => b.type === 'image' && imageProblem(b.mediaType, b.data) !== undefined);
  // The API named no image and every one looks fine here: drop them all rather than fail again.
  const chosen = bad.length > 0 ? bad : images;
  const edited = chosen.map((image) =>
    replaceBlock(history, image, note(image, 'an image the API refused was removed')),
  );
  dropThinkingFrom(history, earliest(edited));
  return chosen.length;
}

/** Drops the thinking from the message the API named on (everywhere when it named none). */
function dropThinking(history: HistoryMessage[], target: Block | undefined): number {
  const at = target ? history.findIndex((m) => m.content.includes(target)) : 0;
  return dropThinkingFrom(history, Math.max(0, at));
}

/** Trims long tool output outside the newest messages; returns how many results and characters. */
function trimOldToolResults(history: HistoryMessage[]): { results: number; chars: number } {
  let results = 0;
  let chars = 0;
  const edited: number[] = [];
  for (const message of history.slice(0, Math.max(0, history.length - KEEP_NEWEST))) {
    for (const block of message.content) {
      if (block.type !== 'tool_result' || block.content.length <= TRIM_TOOL_RESULT_CHARS) continue;
      const cut = block.content.length - TRIM_TOOL_RESULT_CHARS;
      const trimmed: Block = {
        ...block,
        content: `${block.content.slice(0, TRIM_TOOL_RESULT_CHARS)}\n[… ${cut.toLocaleString('en-US')} more characters of old tool output were trimmed to fit the context window]`,
      };
      edited.push(replaceBlock(history, block, trimmed));
      results++;
      chars += cut;
    }
  }
  // Trimming edits what was sent: the turns after it keep their text but not their thinking.
  dropThinkingFrom(history, earliest(edited));
  return { results, chars };
}

/**
 * Repairs `history` in place after `error`; returns what was dropped, for
 * the chat, or undefined when there was nothing this can repair (a request
 * too long with no old tool output left: the caller compacts instead).
 */
export function repairHistory(
  history: HistoryMessage[],
  error: SwitchboardError,
  model: string,
): string | undefined {
  if (error.code === 'PROVIDER_CONTEXT_TOO_LONG') {
    const { results, chars } = trimOldToolResults(history);
    if (results === 0) return undefined;
    return `The request was too long for the model, so ${chars.toLocaleString('en-US')} characters of old tool output (${results} result${results === 1 ? '' : 's'}) were trimmed.`;
  }
  if (error.code !== 'PROVIDER_BAD_CONTENT') return undefined;
  const detail = error.detail as unknown as BadContentDetail;
  const target = located(history, model, detail);
  if (detail.problem === 'image') {
    const n = dropImages(history, target);
    return n > 0
      ? `The API refused ${n === 1 ? 'an image' : `${n} images`} in this conversation; ${n === 1 ? 'it was' : 'they were'} replaced by a note.`
      : undefined;
  }
  if (detail.problem === 'thinking') {
    const n = dropThinking(history, target);
    return n > 0
      ? `The API would not take back ${n} earlier thinking block${n === 1 ? '' : 's'}; they were dropped (the replies themselves are kept).`
      : undefined;
  }
  if (!target) return undefined;
  dropThinkingFrom(
    history,
    replaceBlock(history, target, note(target, 'a block the API refused was removed')),
  );
  return `The API refused one ${target.type.replace('_', ' ')} block of this conversation; it was replaced by a note.`;
}

/**
 * After a 400 the session's own content caused: repairs the history, or, when
 * the request was too long and no old tool output is left to trim, compacts
 * it. Returns the notice for the chat, or undefined when neither helped.
 */
export async function repairOrCompact(
  history: HistoryMessage[],
  error: SwitchboardError,
  model: string,
  compactor: { compact(signal: AbortSignal): Promise<unknown> },
  signal: AbortSignal,
): Promise<string | undefined> {
  const fixed = repairHistory(history, error, model);
  if (fixed || error.code !== 'PROVIDER_CONTEXT_TOO_LONG') return fixed;
  try {
    await compactor.compact(signal);
    return 'The request was too long for the model, so the conversation was compacted.';
  } catch {
    return undefined;
  }
}
