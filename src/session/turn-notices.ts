/**
 * What the session tells the chat when a turn stops short of an answer or
 * changes course: each says what happened and what the person can do next.
 */
import type { ContentBlock, ContextWindowState } from './types.js';

const n = (count: number) => count.toLocaleString('en-US');

/** The notice added when the context guard stops a request. */
export function guardNotice(state: ContextWindowState): string {
  return (
    `The conversation uses ${n(state.usedTokens)} of ${n(state.maxTokens)} tokens ` +
    `(${state.usedPercentage}% of the context window), so the request was not sent. ` +
    'Use /compact to summarize the conversation (or /new to start over), then ask again.'
  );
}

/** The turn made its most model calls. */
export function iterationLimitNotice(maxIterations: number): string {
  return `Stopped after ${maxIterations} model calls in one turn (the tool loop limit). Send a message to let the agent continue.`;
}

/** Said while a tool call cut at the output limit is asked for again with more room. */
export const RETRY_CUT_TOOL_CALL_NOTE =
  'The tool call was longer than the output limit; asking again with more room…';

/** The API paused the turn more often than the session goes on by itself. */
export function pauseLimitNotice(maxPauses: number): string {
  return `The reply paused ${maxPauses} times while searching or reading the web. Send a message to let it go on.`;
}

/** The reply reached the output limit more often than the session continues it by itself. */
export function outputLimitNotice(maxTokens: number): string {
  return `The reply was cut off at the output limit (${n(maxTokens)} tokens). Say "continue" to get the rest.`;
}

/** The model declined; its exchange is left out from now on. */
export function refusalNotice(explanation: string | undefined): string {
  return (
    `The model declined to answer this${explanation ? ` (${explanation})` : ''}. ` +
    'That exchange is left out of the conversation from now on, so you can go on: rephrase it or ask something else.'
  );
}

/** The model declined and the recommended model answers in its place. */
export function refusalRetryNotice(model: string, recommended: string): string {
  return `${model} declined this request; ${recommended} answers it instead.`;
}

/** A sentence for each `fallback` block of a reply: which model declined and which one answered. */
export function fallbackNotices(content: readonly ContentBlock[]): string[] {
  return content.flatMap((b) => {
    if (b.type !== 'api' || b.block.type !== 'fallback') return [];
    const from = (b.block.from as { model?: string } | undefined)?.model ?? 'The model';
    const to = (b.block.to as { model?: string } | undefined)?.model ?? 'another model';
    return [`${from} declined this request; ${to} answered it.`];
  });
}

/** The window filled during the reply; it was compacted and the reply goes on. */
export const WINDOW_COMPACTED_NOTICE =
  'The context window filled up during the reply, so the conversation was compacted and the reply goes on.';

/** The window filled during the reply and compacting did not make room. */
export const WINDOW_FULL_NOTICE =
  'The reply filled the whole context window and was cut off. Use /compact (or /new), then ask again.';
