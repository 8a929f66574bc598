/**
 * One model request of a turn, streamed to the chat as it arrives: the
 * history as the model sees it goes out, the reply's text comes back as
 * `text_delta`, its thinking as `progress_note`, citation marks right after
 * the text they belong to, and the API's own web searches and fetches as
 * tool lines (a failed one said in the chat).
 */
import type { Clock } from '../clock.js';
import type { SourceList } from './citations.js';
import type { TypedEmitter } from './emitter.js';
import { toProviderMessages } from './history.js';
import type { ModelCall } from './model-call.js';
import { callProvider, type StreamCallResult } from './stream-call.js';
import type { HistoryMessage, SessionEvents } from './types.js';
import type { WebActivity } from './web-activity.js';

/** What one request of a turn is made of and where its reply goes. */
export interface TurnRequest {
  call: ModelCall;
  history: readonly HistoryMessage[];
  /** Output tokens asked for this time (a cut tool call is asked again with more). */
  maxTokens: number;
  emitter: TypedEmitter<SessionEvents>;
  clock: Clock;
  /** The turn's texts so far: a new round starts with a blank line after them. */
  texts: readonly string[];
  /** This request continues the last reply's text (a cut reply): no blank line before it. */
  join: boolean;
  /** The turn's cited pages, numbered across its requests. */
  sources: SourceList;
  /** The turn's web searches and fetches, shown as tool lines. */
  web: WebActivity;
}

/** Sends one request and streams its reply to the turn's events; never throws (see {@link callProvider}). */
export function requestReply(r: TurnRequest, signal: AbortSignal): Promise<StreamCallResult> {
  const { call, emitter } = r;
  let first = true;
  return callProvider({
    provider: call.provider,
    request: {
      model: call.model,
      system: call.system,
      messages: toProviderMessages(r.history, call.model),
      tools: [...call.tools],
      maxTokens: r.maxTokens,
    },
    signal,
    clock: r.clock,
    idleTimeoutMs: call.idleTimeoutMs,
    onText: (text) => {
      // Deltas add up to the model's text in the response: rounds are joined by a blank line.
      if (first && !r.join && r.texts.some((t) => t.length > 0)) emitter.emit('text_delta', '\n\n');
      first = false;
      emitter.emit('text_delta', text);
    },
    onThinking: (text) => emitter.emit('progress_note', text),
    // The marks go out right after the text they belong to; the list comes at the end of the turn.
    onCitations: (citations) => {
      const refs = r.sources.refs(citations);
      if (refs) emitter.emit('text_delta', refs);
    },
    // The API's web searches and fetches show as tool lines; a failed one is said in the chat.
    onBlock: (block) => {
      r.sources.learn(block);
      const start = r.web.start(block);
      if (start) emitter.emit('tool_start', start);
      const end = r.web.end(block);
      if (end) emitter.emit('tool_end', end.event);
      if (end?.problem) emitter.emit('notice', end.problem);
    },
  });
}
