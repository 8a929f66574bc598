/**
 * A turn paused in the middle of its tool calls while a person decides: the
 * assistant message with the calls is the last one in the history, the
 * results of the calls before the waiting one are kept here, and so is what
 * the turn waits for. Saved with the session before anyone is asked, it lets
 * any process that loads the session answer the wait and let the turn go on,
 * so a wait outlives the process that began it.
 */
import { SwitchboardError } from '../errors.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import type { StoredPausedTurn } from '../store/types.js';
import { createMessage } from './history.js';
import type { PermissionOutcome } from './permissions.js';
import { runToolCalls, type ToolResultBlock, type WaitingCall } from './tool-runner.js';
import { runTurn, type TurnOutcome, type TurnState } from './turn.js';
import type { HistoryMessage } from './types.js';

/** What a paused turn waits for, and what its host keeps with it. */
export interface PausedTurn extends WaitingCall {
  waitsFor: 'approval';
  /** When the wait ends unanswered (ms since the epoch): it ends as a timeout then, in any process. */
  deadline: number;
  /** The host's own notes (who asked, the prompt's message and button ids), kept as they are. */
  host?: Record<string, unknown>;
}

/** The answers a paused turn takes: a person's, or the deadline passing. */
export type PausedAnswer = Extract<PermissionOutcome, 'allow' | 'allow-session' | 'deny' | 'timeout'>;

/** A stored paused turn, or undefined when what is stored is not one (an older or damaged record). */
export function readPausedTurn(stored: Record<string, unknown> | undefined): PausedTurn | undefined {
  if (!stored) return undefined;
  const { waitsFor, toolUseId, results, request, deadline } = stored;
  const ok =
    waitsFor === 'approval' &&
    typeof toolUseId === 'string' &&
    Array.isArray(results) &&
    typeof request === 'object' &&
    request !== null &&
    typeof deadline === 'number';
  return ok ? (stored as unknown as PausedTurn) : undefined;
}

/**
 * The calls still to run: the waiting one and those after it in the last
 * message. Throws when the history moved on since the pause (the session was
 * used meanwhile), so a stale answer runs nothing.
 */
export function pendingCalls(
  history: readonly HistoryMessage[],
  paused: PausedTurn,
): { id: string; name: string; input: Record<string, unknown> }[] {
  const last = history.at(-1);
  const calls = (last?.role === 'assistant' ? last.content : []).flatMap((b) =>
    b.type === 'tool_use' ? [{ id: b.id, name: b.name, input: b.input }] : [],
  );
  const at = calls.findIndex((c) => c.id === paused.toolUseId);
  if (at < 0) {
    throw new SwitchboardError(
      'SESSION_BUSY',
      'This request has expired: the conversation went on without it. Ask again.',
    );
  }
  return calls.slice(at);
}

/**
 * Goes on with a paused turn: the waiting call takes `answer` (allowed, it
 * runs), the calls after it run or ask as usual, and the model is asked again
 * with every result, in the turn's sandbox. Never throws, like a turn.
 */
export async function resumeTurn(
  state: TurnState,
  sandbox: Sandbox,
  paused: PausedTurn,
  answer: PausedAnswer,
  signal: AbortSignal,
): Promise<TurnOutcome> {
  const calls = pendingCalls(state.history, paused);
  const turn = sandbox.openTurn(state.tools.cwd, state.tools.clock);
  try {
    const inTurn: TurnState = { ...state, tools: { ...state.tools, sandbox: turn } };
    const earlier = paused.results as ToolResultBlock[];
    const decided = { id: paused.toolUseId, outcome: answer };
    const results = await runToolCalls(inTurn.tools, calls, signal, decided, earlier);
    // The results message takes the place of a prompt: the loop sends it and carries on.
    return await runTurn(inTurn, createMessage('user', results, state.tools.clock), signal);
  } finally {
    await turn.close();
  }
}

/**
 * The one turn of a session that may wait for a person, and whether that
 * wait is stored: only a stored wait may outlive the process (see
 * `InteractiveSession.suspend`), since another process finds only what the
 * record holds.
 */
export class PausedTurnSlot {
  /** The turn waiting for a person, as saved in the record. */
  current: PausedTurn | undefined;
  /** The waiting turn once its host's notes were stored. */
  #stored: PausedTurn | undefined;

  /**
   * Records a turn as waiting; `save` stores it before the request goes out.
   * The returned call ends the wait (and saves with `saveEnd`) unless
   * another wait or an answer took its place.
   */
  pause(waiting: WaitingCall, deadline: number, save: () => void, saveEnd: () => void): () => void {
    const paused: PausedTurn = { waitsFor: 'approval', ...waiting, deadline };
    this.current = paused;
    save();
    return () => {
      if (this.current !== paused) return;
      this.current = undefined;
      saveEnd();
    };
  }

  /** Takes the waiting turn out of the slot (to answer it), or undefined when none waits. */
  take(): PausedTurn | undefined {
    const paused = this.current;
    this.current = undefined;
    return paused;
  }

  /**
   * Adds the host's notes to the waiting turn; `save` resolves true once the
   * record holds them, and only then does the wait count as stored.
   */
  async note(host: Record<string, unknown>, save: () => Promise<boolean>): Promise<void> {
    const paused = this.current;
    if (!paused) return;
    paused.host = { ...paused.host, ...host };
    if (await save()) this.#stored = paused;
  }

  /** True when a turn waits and its wait is stored, so another process can take it over. */
  isStored(): boolean {
    return this.current !== undefined && this.#stored === this.current;
  }

  /** The record's field for the waiting turn (absent when none waits). */
  recordField(): { pausedTurn?: StoredPausedTurn } {
    return this.current ? { pausedTurn: { ...this.current } } : {};
  }
}
