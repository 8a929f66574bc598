/**
 * The agent loop of one turn: send the history and tools, stream the reply,
 * run requested tools, send their results, and ask again until the model
 * stops asking for tools. Before every call the context guard may stop the
 * turn with a notice instead of sending a request the API would reject.
 */
import type { SwitchboardError } from '../errors.js';
import type { Provider } from '../provider/types.js';
import type { ContextWindowTracker } from './context-tracker.js';
import { createMessage, toProviderMessages } from './history.js';
import { callProvider } from './stream-call.js';
import { runToolCalls, type ToolHost, toolDefinitions } from './tool-runner.js';
import type { ContentBlock, ContextWindowState, HistoryMessage, TokenUsage, TurnResult } from './types.js';

/** Past this share of the window no request is sent. */
export const CONTEXT_GUARD_FRACTION = 0.95;
/** Most model calls in one turn before it is stopped with a notice. */
export const DEFAULT_MAX_ITERATIONS = 50;

/** What a turn needs from the session, beyond running tools. */
export interface TurnHost extends ToolHost {
  history: HistoryMessage[];
  provider: Provider;
  model: string;
  maxTokens: number;
  system: string;
  tracker: ContextWindowTracker;
  idleTimeoutMs: number;
  maxIterations: number;
  /** Recomputes the context state from the history and emits `context_update` when it changed. */
  refreshContext(): ContextWindowState;
  /** Records a reply's reported usage and emits `context_update`. */
  reportUsage(usage: TokenUsage): void;
}

/** How a turn ended: a result, and the error when it failed. */
export interface TurnOutcome {
  result: TurnResult;
  error?: SwitchboardError;
}

function addUsage(total: TokenUsage, usage: TokenUsage): void {
  total.inputTokens += usage.inputTokens;
  total.outputTokens += usage.outputTokens;
  if (usage.cacheReadInputTokens)
    total.cacheReadInputTokens = (total.cacheReadInputTokens ?? 0) + usage.cacheReadInputTokens;
  if (usage.cacheCreationInputTokens)
    total.cacheCreationInputTokens = (total.cacheCreationInputTokens ?? 0) + usage.cacheCreationInputTokens;
}

/** The notice added when the context guard stops a request. */
export function guardNotice(state: ContextWindowState): string {
  return (
    `The conversation uses ${state.usedTokens.toLocaleString('en-US')} of ${state.maxTokens.toLocaleString('en-US')} tokens ` +
    `(${state.usedPercentage}% of the context window), so the request was not sent. ` +
    'Use /compact to summarize the conversation (or /new to start over), then ask again.'
  );
}

/**
 * Runs one turn for `prompt` (already built, not yet in the history). Never
 * throws: failures come back as `error` with the partial result.
 */
export async function runTurn(
  host: TurnHost,
  prompt: HistoryMessage,
  signal: AbortSignal,
): Promise<TurnOutcome> {
  const { history, emitter } = host;
  history.push(prompt);
  host.refreshContext();
  const texts: string[] = [];
  const usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
  // Deltas add up to the model's text in the response: rounds are joined by a blank line.
  const emitText = (text: string, first: boolean) => {
    if (first && texts.some((t) => t.length > 0)) emitter.emit('text_delta', '\n\n');
    emitter.emit('text_delta', text);
  };
  const finish = (state: TurnResult['state'], error?: SwitchboardError): TurnOutcome => ({
    result: {
      response: texts.filter((t) => t.length > 0).join('\n\n'),
      contextState: host.refreshContext(),
      usage,
      state,
    },
    ...(error ? { error } : {}),
  });
  const addNotice = (text: string) => {
    history.push(
      createMessage('assistant', [{ type: 'text', text }], host.clock, { kind: 'notice', state: 'complete' }),
    );
    // A notice is the session speaking, not the model: it goes out as `notice`, not as
    // reply text, and ends the response so callers reading `response` see it too.
    texts.push(text);
    emitter.emit('notice', text);
  };

  for (let iteration = 0; ; iteration++) {
    if (iteration >= host.maxIterations) {
      addNotice(
        `Stopped after ${host.maxIterations} model calls in one turn (the tool loop limit). Send a message to let the agent continue.`,
      );
      return finish('complete');
    }
    const state = host.refreshContext();
    if (state.usedTokens >= CONTEXT_GUARD_FRACTION * state.maxTokens) {
      addNotice(guardNotice(state));
      return finish('complete');
    }
    let first = true;
    const call = await callProvider({
      provider: host.provider,
      request: {
        model: host.model,
        system: host.system,
        messages: toProviderMessages(history),
        tools: toolDefinitions(host.tools),
        maxTokens: host.maxTokens,
      },
      signal,
      clock: host.clock,
      idleTimeoutMs: host.idleTimeoutMs,
      onText: (text) => {
        emitText(text, first);
        first = false;
      },
    });
    texts.push(call.text);
    const content: ContentBlock[] = [
      ...(call.text ? [{ type: 'text' as const, text: call.text }] : []),
      ...call.toolUses.map((t) => ({ type: 'tool_use' as const, id: t.id, name: t.name, input: t.input })),
    ];
    if (call.error || !call.end) {
      const aborted = call.error?.code === 'ABORTED';
      // Keep what arrived, marked interrupted, so the next request says it was cut off.
      // An abort keeps even an empty reply for that reason; a failure before any text keeps nothing.
      if (aborted || content.length > 0) {
        history.push(createMessage('assistant', content, host.clock, { state: 'interrupted' }));
      }
      return finish('interrupted', call.error);
    }
    const reply = createMessage('assistant', content, host.clock, { state: 'complete' });
    history.push(reply);
    addUsage(usage, call.end.usage);
    host.reportUsage(call.end.usage);
    if (call.end.stopReason !== 'tool_use' || call.toolUses.length === 0) return finish('complete');

    const results = await runToolCalls(host, call.toolUses, signal);
    history.push(createMessage('user', results, host.clock));
    if (signal.aborted) {
      reply.state = 'interrupted';
      return finish('interrupted');
    }
  }
}
