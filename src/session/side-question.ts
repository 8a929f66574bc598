/**
 * A side question (`/btw`): answered at once from the conversation so far,
 * without waiting for the running turn and without entering the history.
 * The request repeats the session's system prompt, tools and messages, so
 * its prefix is the one the running turn has cached, and only the question
 * is new. Nothing of it is kept; its usage is billed to the session.
 */
import { SwitchboardError } from '../errors.js';
import { toProviderMessages, userMessage } from './history.js';
import { callProvider } from './stream-call.js';
import type { TurnState } from './turn.js';
import type { HistoryMessage } from './types.js';

/** Most output tokens a side answer may use: it should be short. */
export const SIDE_ANSWER_MAX_TOKENS = 2_048;

/** Said to the model with the question, so it answers now and briefly instead of starting work. */
const ASIDE =
  '(A side question while you work. Answer briefly from what this conversation already holds, without tools; ' +
  'your answer is not added to the conversation, so do not change your plan for it.)';

/**
 * The history as it stands, cut where a question may follow: a reply still
 * waiting for its tool results ends the snapshot before it.
 */
function settledPrefix(history: readonly HistoryMessage[]): HistoryMessage[] {
  const snapshot = [...history];
  const last = snapshot.at(-1);
  if (last?.role === 'assistant' && last.content.some((b) => b.type === 'tool_use')) snapshot.pop();
  return snapshot;
}

/**
 * Answers `question` from the conversation in `state` with one model
 * request of its own; the history is not changed.
 *
 * @throws SwitchboardError the request's error (`ABORTED` when `signal` stops it).
 */
export async function answerAside(
  state: Pick<TurnState, 'history' | 'call' | 'tools'>,
  question: { text: string; author?: string },
  signal: AbortSignal,
): Promise<string> {
  const { call } = state;
  const { clock } = state.tools;
  const asked = userMessage({ ...question, text: `${question.text}\n\n${ASIDE}` }, clock).message;
  const reply = await callProvider({
    provider: call.provider,
    request: {
      model: call.model,
      system: call.system,
      messages: toProviderMessages([...settledPrefix(state.history), asked], call.model),
      tools: [...call.tools],
      maxTokens: Math.min(SIDE_ANSWER_MAX_TOKENS, call.maxTokens),
    },
    signal,
    clock,
    idleTimeoutMs: call.idleTimeoutMs,
  });
  if (reply.error) throw reply.error;
  const text = reply.text.trim();
  if (!text)
    throw new SwitchboardError(
      'PROVIDER_ERROR',
      'The model gave no answer to the side question (it wanted to use tools); ask it as a normal message instead.',
    );
  return text;
}
