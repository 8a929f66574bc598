/**
 * The agent loop of one turn: send the history and tools, stream the reply,
 * run requested tools, send their results, and ask again until the model is
 * done. Every stop reason is handled (Stop reasons page of
 * platform.claude.com/docs): a reply cut at the output limit is continued,
 * a tool call cut there is asked again with a larger limit, a paused turn
 * goes on, a refusal is withheld from later requests, a full window is
 * compacted once. A 400 caused by the session's own content is repaired and
 * retried once. Before every call the context guard may stop the turn with
 * a notice instead of sending a request the API would reject.
 *
 * One request and its streamed reply are turn-request.ts; what the chat is
 * told when the turn stops short, turn-notices.ts; the repairs, repair.ts.
 */
import type { SwitchboardError } from '../errors.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { SourceList } from './citations.js';
import type { ContextMeter } from './context-meter.js';
import { CONTINUE_NOTICE, createMessage } from './history.js';
import type { ModelCall } from './model-call.js';
import { repairOrCompact } from './repair.js';
import type { SteeringInbox } from './steering.js';
import { runToolCalls, type ToolHost } from './tool-runner.js';
import {
  fallbackNotices,
  guardNotice,
  iterationLimitNotice,
  outputLimitNotice,
  pauseLimitNotice,
  RETRY_CUT_TOOL_CALL_NOTE,
  refusalNotice,
  refusalRetryNotice,
  WINDOW_COMPACTED_NOTICE,
  WINDOW_FULL_NOTICE,
} from './turn-notices.js';
import { requestReply } from './turn-request.js';
import { addUsage } from './turn-usage.js';
import type { CompactEvent, HistoryMessage, TokenUsage, TurnResult } from './types.js';
import { WebActivity } from './web-activity.js';

/** Past this share of the window no request is sent. */
export const CONTEXT_GUARD_FRACTION = 0.95;
/** Most model calls in one turn before it is stopped with a notice. */
export const DEFAULT_MAX_ITERATIONS = 50;
/** Replies cut at the output limit are continued at most this many times per turn. */
export const MAX_CONTINUATIONS = 2;
/**
 * A turn the API paused (`pause_turn`: a long run of server tools such as
 * web searches) is continued at most this many times before the chat is
 * asked whether to go on.
 */
export const MAX_PAUSES = 10;

/** Everything a turn works with: a small state object, not a host of callbacks. */
export interface TurnState {
  history: HistoryMessage[];
  call: ModelCall;
  meter: ContextMeter;
  /** Runs the tools the model asks for; its emitter carries the turn's events. */
  tools: ToolHost;
  /** Compacts the history now (the turn already holds the session). */
  compactor: { compact(signal: AbortSignal): Promise<CompactEvent> };
  maxIterations: number;
  /** Messages written while the turn runs, joined at its next request. */
  steering?: SteeringInbox;
  /** Awaited before every model request; a returned notice ends the turn there (a budget reached). */
  beforeRequest?: (signal: AbortSignal) => Promise<string | undefined>;
}

/** How a turn ended: a result, and the error when it failed. */
export interface TurnOutcome {
  result: TurnResult;
  error?: SwitchboardError;
}

/**
 * Runs a turn in a sandbox of its own (`sandbox.openTurn`), closed when the
 * turn ends, so whatever the turn's commands left running ends with it.
 */
export async function runTurnInSandbox(
  state: TurnState,
  sandbox: Sandbox,
  prompt: HistoryMessage,
  signal: AbortSignal,
): Promise<TurnOutcome> {
  const turn = sandbox.openTurn(state.tools.cwd, state.tools.clock);
  try {
    return await runTurn({ ...state, tools: { ...state.tools, sandbox: turn } }, prompt, signal);
  } finally {
    await turn.close();
  }
}

/**
 * Runs one turn for `prompt` (already built, not yet in the history). Never
 * throws: failures come back as `error` with the partial result.
 */
export async function runTurn(
  state: TurnState,
  prompt: HistoryMessage,
  signal: AbortSignal,
): Promise<TurnOutcome> {
  const { history, call, meter } = state;
  const { emitter, clock } = state.tools;
  history.push(prompt);
  meter.frame({ system: call.system, tools: call.tools }); // the turn's tools (MCP servers come and go)
  meter.refresh(history);
  const texts: string[] = [];
  const usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
  let maxTokens = call.maxTokens;
  /** The model this turn asks: the session's, or the fallback a refusal recommended. */
  let model = call.model;
  let continuations = 0;
  let pauses = 0;
  let repaired = false;
  let compactedForWindow = false;
  /** The next round continues the last reply's text (a cut reply): no paragraph break. */
  let joinNext = false;
  const sources = new SourceList();
  const web = new WebActivity();

  const finish = (end: TurnResult['state'], error?: SwitchboardError): TurnOutcome => {
    // The pages the reply cited, listed under it (numbered as the [n] marks in its text).
    const footer = sources.footer();
    if (footer) {
      emitter.emit('text_delta', '\n\n');
      emitter.emit('text_delta', footer);
      texts.push(footer);
    }
    return finishWith(end, error);
  };
  const finishWith = (end: TurnResult['state'], error?: SwitchboardError): TurnOutcome => ({
    result: {
      response: texts.filter((t) => t.length > 0).join('\n\n'),
      contextState: meter.refresh(history),
      usage,
      state: end,
    },
    ...(error ? { error } : {}),
  });
  const addNotice = (text: string) => {
    history.push(
      createMessage('assistant', [{ type: 'text', text }], clock, { kind: 'notice', state: 'complete' }),
    );
    // A notice is the session speaking, not the model: it goes out as `notice`, not as
    // reply text, and ends the response so callers reading `response` see it too.
    texts.push(text);
    emitter.emit('notice', text);
  };

  for (let iteration = 0; ; iteration++) {
    state.steering?.drainInto(history, clock);
    if (iteration >= state.maxIterations) {
      addNotice(iterationLimitNotice(state.maxIterations));
      return finish('complete');
    }
    const context = await meter.decide(history, call, [CONTEXT_GUARD_FRACTION], signal);
    if (context.usedTokens >= CONTEXT_GUARD_FRACTION * context.maxTokens) {
      addNotice(guardNotice(context));
      return finish('complete');
    }
    const held = await state.beforeRequest?.(signal);
    if (held !== undefined && !signal.aborted) {
      addNotice(held);
      return finish('complete');
    }
    const joined = joinNext;
    const reply = await requestReply(
      { call: { ...call, model }, history, maxTokens, emitter, clock, texts, join: joined, sources, web },
      signal,
    );
    joinNext = false;
    if (reply.error || !reply.end) {
      const error = reply.error;
      const nothingArrived = reply.content.length === 0;
      if (error && !repaired && nothingArrived) {
        const fixed = await repairOrCompact(history, error, call.model, state.compactor, signal);
        if (fixed) {
          repaired = true;
          addNotice(fixed);
          continue;
        }
      }
      // Keep what arrived, marked interrupted, so the next request says it was cut off.
      // An abort keeps even an empty reply for that reason; a failure before any text keeps nothing.
      texts.push(sources.display(reply.content));
      if (error?.code === 'ABORTED' || !nothingArrived) {
        history.push(createMessage('assistant', reply.content, clock, { state: 'interrupted', model }));
      }
      return finish('interrupted', error);
    }
    const { stopReason } = reply.end;
    if (reply.cutToolUses.length > 0 && maxTokens < call.maxOutputTokens) {
      // A tool call cut at the output limit fails the same way if asked again
      // with the same limit: ask again with room for it, and keep nothing of the cut reply.
      maxTokens = Math.min(call.maxOutputTokens, maxTokens * 4);
      addUsage(usage, reply.end.usage);
      emitter.emit('progress_note', RETRY_CUT_TOOL_CALL_NOTE);
      continue;
    }
    // A continuation of a cut reply is the same paragraph, not a new one.
    const text = sources.display(reply.content);
    if (joined && texts.length > 0) texts[texts.length - 1] += text;
    else texts.push(text);
    const message = createMessage('assistant', reply.content, clock, {
      state: 'complete',
      model,
      stopReason: stopReason as NonNullable<HistoryMessage['stopReason']>,
    });
    history.push(message);
    // Refusals and fallback page: a `fallback` block marks where another model took over; say which.
    for (const handover of fallbackNotices(reply.content)) emitter.emit('notice', handover);
    addUsage(usage, reply.end.usage);
    meter.report(reply.end.usage, history.length);

    switch (stopReason) {
      case 'tool_use': {
        if (reply.toolUses.length === 0) return finish('complete');
        const results = await runToolCalls(state.tools, reply.toolUses, signal);
        history.push(createMessage('user', results, clock));
        if (signal.aborted) {
          message.state = 'interrupted';
          return finish('interrupted');
        }
        continue;
      }
      case 'pause_turn':
        // Stop reasons page: the API paused a long turn (server tools); its content, sent back
        // exactly as received, lets it go on.
        if (pauses < MAX_PAUSES) {
          pauses++;
          continue;
        }
        addNotice(pauseLimitNotice(MAX_PAUSES));
        return finish('complete');
      case 'max_tokens':
        if (reply.cutToolUses.length === 0 && continuations < MAX_CONTINUATIONS) {
          continuations++;
          joinNext = true;
          // Asked for in a message of its own at the end, kept as sent: the current models refuse
          // an assistant prefill, and a notice merged into a later message would change what was sent.
          history.push(
            createMessage('user', [{ type: 'text', text: CONTINUE_NOTICE }], clock, { kind: 'continue' }),
          );
          continue;
        }
        addNotice(outputLimitNotice(maxTokens));
        return finish('complete');
      case 'refusal': {
        // Refusals and fallback page: where the retry is ours, ask the recommended model once.
        const recommended = reply.end.refusal?.recommendedModel;
        if (recommended && recommended !== model && call.provider.retriesRefusals?.(model)) {
          message.withheld = 'refusal';
          emitter.emit('notice', refusalRetryNotice(model, recommended));
          model = recommended;
          continue;
        }
        // Stop reasons page: a refused exchange must not stay in what the model sees, or the next turn is refused too.
        for (const m of history.slice(history.indexOf(prompt))) m.withheld = 'refusal';
        addNotice(refusalNotice(reply.end.refusal?.explanation));
        return finish('complete');
      }
      case 'model_context_window_exceeded':
        if (!compactedForWindow) {
          compactedForWindow = true;
          const compacted = await state.compactor.compact(signal).then(
            () => true,
            () => false,
          );
          if (compacted) {
            addNotice(WINDOW_COMPACTED_NOTICE);
            continue;
          }
        }
        addNotice(WINDOW_FULL_NOTICE);
        return finish('complete');
      default:
        return finish('complete');
    }
  }
}
