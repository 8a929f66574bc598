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
 */
import type { SwitchboardError } from '../errors.js';
import type { Provider } from '../provider/types.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { SourceList } from './citations.js';
import type { ContextMeter } from './context-meter.js';
import { CONTINUE_NOTICE, createMessage, toProviderMessages } from './history.js';
import { repairHistory } from './repair.js';
import type { SteeringInbox } from './steering.js';
import { callProvider, type StreamCallResult } from './stream-call.js';
import { runToolCalls, type ToolHost } from './tool-runner.js';
import { addUsage } from './turn-usage.js';
import type {
  CompactEvent,
  ContentBlock,
  ContextWindowState,
  HistoryMessage,
  TokenUsage,
  ToolDefinition,
  TurnResult,
} from './types.js';
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

/** One model request's fixed parts. */
export interface ModelCall {
  provider: Provider;
  model: string;
  system: string;
  tools: readonly ToolDefinition[];
  /** Output tokens asked for per request. */
  maxTokens: number;
  /** The model's own output limit: how far a cut tool call may be given more room. */
  maxOutputTokens: number;
  idleTimeoutMs: number;
}

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

/** The notice added when the context guard stops a request. */
export function guardNotice(state: ContextWindowState): string {
  return (
    `The conversation uses ${state.usedTokens.toLocaleString('en-US')} of ${state.maxTokens.toLocaleString('en-US')} tokens ` +
    `(${state.usedPercentage}% of the context window), so the request was not sent. ` +
    'Use /compact to summarize the conversation (or /new to start over), then ask again.'
  );
}

/** What a refusal tells the chat. */
function refusalNotice(explanation: string | undefined): string {
  return (
    `The model declined to answer this${explanation ? ` (${explanation})` : ''}. ` +
    'That exchange is left out of the conversation from now on, so you can go on: rephrase it or ask something else.'
  );
}

/**
 * Runs one turn for `prompt` (already built, not yet in the history). Never
 * throws: failures come back as `error` with the partial result.
 */
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
      addNotice(
        `Stopped after ${state.maxIterations} model calls in one turn (the tool loop limit). Send a message to let the agent continue.`,
      );
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
    const reply = await stream(
      { ...state, call: { ...call, model } },
      maxTokens,
      signal,
      texts,
      joined,
      sources,
      web,
    );
    joinNext = false;
    if (reply.error || !reply.end) {
      const error = reply.error;
      const nothingArrived = reply.content.length === 0;
      if (error && !repaired && nothingArrived) {
        const fixed = await repair(state, error, signal);
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
      emitter.emit(
        'progress_note',
        'The tool call was longer than the output limit; asking again with more room…',
      );
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
    for (const handover of fallbacks(reply.content)) emitter.emit('notice', handover);
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
        addNotice(
          `The reply paused ${MAX_PAUSES} times while searching or reading the web. Send a message to let it go on.`,
        );
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
        addNotice(
          `The reply was cut off at the output limit (${maxTokens.toLocaleString('en-US')} tokens). Say "continue" to get the rest.`,
        );
        return finish('complete');
      case 'refusal': {
        // Refusals and fallback page: where the retry is ours, ask the recommended model once.
        const recommended = reply.end.refusal?.recommendedModel;
        if (recommended && recommended !== model && call.provider.retriesRefusals?.(model)) {
          message.withheld = 'refusal';
          emitter.emit('notice', `${model} declined this request; ${recommended} answers it instead.`);
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
            addNotice(
              'The context window filled up during the reply, so the conversation was compacted and the reply goes on.',
            );
            continue;
          }
        }
        addNotice(
          'The reply filled the whole context window and was cut off. Use /compact (or /new), then ask again.',
        );
        return finish('complete');
      default:
        return finish('complete');
    }
  }
}

/** A sentence for each `fallback` block of a reply: which model declined and which one answered. */
function fallbacks(content: readonly ContentBlock[]): string[] {
  return content.flatMap((b) => {
    if (b.type !== 'api' || b.block.type !== 'fallback') return [];
    const from = (b.block.from as { model?: string } | undefined)?.model ?? 'The model';
    const to = (b.block.to as { model?: string } | undefined)?.model ?? 'another model';
    return [`${from} declined this request; ${to} answered it.`];
  });
}

/** Streams one request, sending text as it arrives and the progress notes as `progress_note`. */
async function stream(
  state: TurnState,
  maxTokens: number,
  signal: AbortSignal,
  texts: readonly string[],
  join: boolean,
  sources: SourceList,
  web: WebActivity,
): Promise<StreamCallResult> {
  const { call } = state;
  const { emitter, clock } = state.tools;
  let first = true;
  return callProvider({
    provider: call.provider,
    request: {
      model: call.model,
      system: call.system,
      messages: toProviderMessages(state.history, call.model),
      tools: [...call.tools],
      maxTokens,
    },
    signal,
    clock,
    idleTimeoutMs: call.idleTimeoutMs,
    onText: (text) => {
      // Deltas add up to the model's text in the response: rounds are joined by a blank line.
      if (first && !join && texts.some((t) => t.length > 0)) emitter.emit('text_delta', '\n\n');
      first = false;
      emitter.emit('text_delta', text);
    },
    onThinking: (text) => emitter.emit('progress_note', text),
    // The marks go out right after the text they belong to; the list comes at the end of the turn.
    onCitations: (citations) => {
      const refs = sources.refs(citations);
      if (refs) emitter.emit('text_delta', refs);
    },
    // The API's web searches and fetches show as tool lines; a failed one is said in the chat.
    onBlock: (block) => {
      sources.learn(block);
      const start = web.start(block);
      if (start) emitter.emit('tool_start', start);
      const end = web.end(block);
      if (end) emitter.emit('tool_end', end.event);
      if (end?.problem) emitter.emit('notice', end.problem);
    },
  });
}

/** Repairs the history after a 400 it caused; returns what was dropped, or undefined. */
async function repair(
  state: TurnState,
  error: SwitchboardError,
  signal: AbortSignal,
): Promise<string | undefined> {
  const fixed = repairHistory(state.history, error, state.call.model);
  if (fixed || error.code !== 'PROVIDER_CONTEXT_TOO_LONG') return fixed;
  try {
    await state.compactor.compact(signal);
    return 'The request was too long for the model, so the conversation was compacted.';
  } catch {
    return undefined;
  }
}
