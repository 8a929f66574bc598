/**
 * InteractiveSession: one persisted agent conversation. It queues prompts,
 * runs the agent loop with tools under a permission mode, tracks the context
 * window, compacts, aborts, and saves itself after every turn. What it is
 * made of, and how those parts are built, opened and saved, is in
 * session-parts.ts; this is what a caller can do with it.
 */
import { SwitchboardError } from '../errors.js';
import { silentLogger } from '../logger.js';
import type { ModelInfo } from '../provider/models.js';
import { validateSessionName } from '../store/index.js';
import { compactHistory } from './compaction.js';
import { TypedEmitter } from './emitter.js';
import type { SubmitInput } from './history.js';
import { promptFor } from './incoming-files.js';
import { type PausedAnswer, type PausedTurn, resumeTurn } from './paused-turn.js';
import {
  checkPermissionMode,
  type InteractiveSessionOptions,
  type SessionHandle,
  type SubmitOptions,
  validThreshold,
} from './session-options.js';
import { SessionParts } from './session-parts.js';
import { answerAside } from './side-question.js';
import { runTurnInSandbox, type TurnOutcome, type TurnState } from './turn.js';
import type {
  CompactEvent,
  ContextWindowState,
  HistoryMessage,
  SessionEvents,
  TurnResult,
  UsageLedger,
} from './types.js';

/**
 * @example
 * const session = new InteractiveSession({ cwd: process.cwd(), provider });
 * session.on('text_delta', (delta) => process.stdout.write(delta));
 * const { completed } = await session.submit('What is in this folder?');
 * console.log((await completed).response);
 */
export class InteractiveSession extends TypedEmitter<SessionEvents> {
  /** Resolves once the session is loaded (or created); rejects with a SessionLoadError. */
  readonly ready: Promise<void>;
  /** What the session is made of, wired together. */
  readonly #s: SessionParts;
  #closed = false;

  /** Creates and awaits a session: `ready` resolved, or its error thrown. */
  static async open(options: InteractiveSessionOptions): Promise<InteractiveSession> {
    const session = new InteractiveSession(options);
    await session.ready;
    return session;
  }

  constructor(options: InteractiveSessionOptions) {
    super(options.logger ?? silentLogger);
    this.#s = new SessionParts(options, this, (signal) => this.#compact('auto', undefined, signal));
    this.ready = this.#s.open();
    // `ready` may be ignored by a caller that only submits; submit() rethrows.
    this.ready.catch(() => undefined);
  }

  /**
   * Runs a prompt. Idle: runs the turn and resolves after it. Busy: queues it
   * and resolves at once. `completed` settles with the turn's result, or
   * rejects (QUEUE_FULL, ABORTED when cleared, or the turn's error).
   */
  async submit(input: SubmitInput, options: SubmitOptions = {}): Promise<{ completed: Promise<TurnResult> }> {
    await this.ready;
    if (this.#closed)
      throw new SwitchboardError('SESSION_BUSY', 'This session was closed; open it again to continue.');
    const job = this.#s.queue.push((signal) => this.#turn(input, signal, options));
    if (job.startedNow) await job.settled;
    return { completed: job.completed };
  }

  async #turn(input: SubmitInput, signal: AbortSignal, options: SubmitOptions): Promise<TurnResult> {
    const { message: prompt, refused } = await promptFor(input, this.#s.turnState(), this.#s.sandbox);
    for (const why of refused) this.emit('notice', why);
    if (this.#s.meter.crosses(this.#s.history, prompt, this.#s.threshold)) {
      await this.#compact('auto', undefined, signal).catch((err: unknown) => {
        this.#s.logger.warn({ err }, 'auto-compaction failed; the turn goes on');
      });
    }
    if (signal.aborted) throw new SwitchboardError('ABORTED', 'Stopped before the reply started.');
    // A new prompt while a turn waited (after a restart): that wait is over, its calls unanswered.
    this.#s.paused.take();
    this.#s.frame.advance(this.#s.history);
    return this.#steered((state) => runTurnInSandbox(state, this.#s.sandbox, prompt, signal), options);
  }

  /** Runs a turn with the steering inbox open, then saves it and says how it ended. */
  async #steered(
    run: (state: TurnState) => Promise<TurnOutcome>,
    options: SubmitOptions,
  ): Promise<TurnResult> {
    this.#s.steering.open();
    const outcome = await run(this.#s.turnState(options)).finally(() => this.#s.steering.close());
    await this.#s.persistence.saveTurn(this.#s.history, this.#s.meta());
    if (outcome.error && outcome.error.code !== 'ABORTED') {
      this.emit('error', outcome.error);
      throw outcome.error;
    }
    this.emit(outcome.result.state === 'interrupted' ? 'interrupted' : 'complete', outcome.result);
    return outcome.result;
  }

  /**
   * Goes on with the turn saved as waiting for an approval (by this process
   * or one before it): `answer` settles the waiting call and the turn runs to
   * its end like {@link submit}'s. Rejects with SESSION_BUSY when no turn
   * waits or the conversation went on without it.
   */
  async resumePausedTurn(
    answer: PausedAnswer,
    options: SubmitOptions = {},
  ): Promise<{ completed: Promise<TurnResult> }> {
    await this.ready;
    const paused = this.#closed ? undefined : this.#s.paused.take();
    if (!paused)
      throw new SwitchboardError(
        'SESSION_BUSY',
        'This request has expired: nothing waits for it. Ask again.',
      );
    this.#s.saveMeta(); // answered: a later press, here or elsewhere, finds nothing waiting
    const job = this.#s.queue.push((signal) =>
      this.#steered((state) => resumeTurn(state, this.#s.sandbox, paused, answer, signal), options),
    );
    if (job.startedNow) await job.settled;
    return { completed: job.completed };
  }

  /** The turn waiting for a person (a copy), if one does. */
  pausedTurn(): PausedTurn | undefined {
    const paused = this.#s.paused.current;
    return paused ? { ...paused } : undefined;
  }

  /**
   * Adds the host's notes (who asked, the prompt's ids) to the waiting turn
   * and saves them; resolves once they are stored, so a prompt shown after it
   * can be answered by any process.
   */
  async notePausedTurn(host: Record<string, unknown>): Promise<void> {
    await this.#s.paused.note(host, async () => {
      await this.#s.persistence.saveTurn(this.#s.history, this.#s.meta());
      const failed = await this.#s.persistence.lastResult();
      return this.#s.persistence.enabled && !failed;
    });
  }

  /**
   * Lets go of a turn that waits for a person without recording an end: the
   * saved record keeps it waiting, for the next process to resume. Nothing
   * of this session is saved afterwards. False (and nothing done) when no
   * turn waits, or its wait was not stored by {@link notePausedTurn}.
   */
  suspend(): boolean {
    if (!this.#s.paused.isStored()) return false;
    this.#s.persistence.freeze();
    this.#closed = true;
    this.abort();
    return true;
  }

  /**
   * Summarizes the conversation into one `[Context Summary]` message. While
   * a turn runs it is queued behind it (and cleared by abort like a prompt).
   * Rejects with COMPACTION_FAILED, leaving the history untouched.
   */
  compactContext(focus?: string): Promise<CompactEvent> {
    const done = this.ready.then(
      () => this.#s.queue.push((signal) => this.#compact('manual', focus, signal)).completed,
    );
    // Like `completed`, a compaction nobody awaits must not become an unhandled rejection.
    done.catch(() => undefined);
    return done;
  }

  async #compact(trigger: CompactEvent['trigger'], focus: string | undefined, signal: AbortSignal) {
    try {
      const { call } = this.#s.turnState();
      const event = await compactHistory(
        {
          ...call,
          history: this.#s.history,
          meter: this.#s.meter,
          clock: this.#s.clock,
          logger: this.#s.logger,
          hooks: this.#s.options.hooks ?? {},
          compactInstructions: this.#s.compactInstructions,
        },
        trigger,
        focus,
        signal,
      );
      this.emit('compact', event);
      this.#s.emitContext(event.after);
      this.#s.frame.restart();
      await this.#s.persistence.replace(this.#s.history, this.#s.meta());
      return event;
    } catch (err) {
      this.emit('error', err as Error);
      throw err;
    }
  }

  /**
   * Stops the running turn (its partial reply is kept as interrupted; a
   * permission request it waits on ends as aborted) and cancels every
   * queued prompt.
   */
  abort(): void {
    this.#s.queue.clear();
    this.#s.queue.abortCurrent();
  }

  /**
   * Adds a message to the running turn: it joins at the turn's next model
   * request (after pending tool results). Resolves true once it has, false
   * when no turn runs or the turn ended without another request; then the
   * caller submits it as usual.
   */
  steer(input: { text: string; author?: string }): Promise<boolean> {
    if (this.#closed) return Promise.resolve(false);
    return this.#s.steering.push(input);
  }

  /**
   * Answers a side question from the conversation so far, at once, even
   * while a turn runs; neither the question nor the answer enters the
   * history. Its usage is billed to the session.
   */
  async askAside(question: { text: string; author?: string }, signal?: AbortSignal): Promise<string> {
    await this.ready;
    return answerAside(this.#s.turnState(), question, signal ?? new AbortController().signal);
  }

  /** True while a turn or a compaction runs. */
  isRunning(): boolean {
    return this.#s.queue.busy;
  }

  /** Prompts and compactions waiting behind the running one. */
  queuedCount(): number {
    return this.#s.queue.size;
  }

  /** Current context window usage (as `context_update` reports it). */
  getContextState(): ContextWindowState {
    return this.#s.tracker.getState();
  }

  /** A copy of the conversation, notices and summaries included. */
  getFullHistory(): HistoryMessage[] {
    return this.#s.history.map((m) => ({ ...m, content: [...m.content] }));
  }

  /** The session's name, if it has one. */
  getName(): string | undefined {
    return this.#s.who.name;
  }

  /** Renames the session (validated: no path characters) and saves the record. */
  setName(name: string): void {
    this.#s.who.name = validateSessionName(name);
    this.#s.saveMeta();
  }

  /** What this session's model requests used, per day and model (a copy). */
  getUsage(): UsageLedger {
    return this.#s.usage.ledger();
  }

  /**
   * Adds a voice note transcribed for this session to its usage ledger (the
   * bot transcribes before the turn; `seconds` is 0 when the length is
   * unknown) and saves the record.
   */
  recordTranscription(model: string, seconds: number): void {
    this.#s.usage.recordTranscription(model, seconds);
    this.#s.saveMeta();
  }

  /** The model this session sends its requests to. */
  getModel(): string {
    return this.#s.model;
  }

  /** Owner key saved with the session (`platform:userId`), if any. */
  getOwner(): string | undefined {
    return this.#s.who.owner;
  }

  /** Id and permission mode; `setPermissionMode` applies to the next tool call and is saved. */
  getSession(): SessionHandle {
    return {
      getSessionId: () => this.#s.who.id,
      getPermissionMode: () => this.#s.grants.mode,
      lastSave: () => this.#s.persistence.lastResult(),
      setPermissionMode: (mode) => {
        this.#s.grants.mode = checkPermissionMode(mode);
        this.#s.saveMeta();
      },
      listGrants: () => this.#s.grants.list(),
      revokeGrant: (scope) => this.#s.grants.revoke(scope),
    };
  }

  /** Changes the auto-compaction threshold (a fraction in (0, 1]) or turns it off. */
  setAutoCompactThreshold(threshold: number | false): void {
    this.#s.threshold = validThreshold(threshold);
  }

  /** Waits for pending saves. The session accepts no prompts afterwards. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.ready.catch(() => undefined);
    await this.#s.persistence.flush();
  }

  /** The model this session talks to, with its window and output limit (for /status). */
  getModelInfo(): ModelInfo {
    return this.#s.modelInfo;
  }

  /**
   * Whether the model may use its web tools in this chat: `unavailable` when
   * the deployment or the model offers none.
   */
  getWeb(): 'on' | 'off' | 'unavailable' {
    return this.#s.frame.web();
  }

  /** The names of the web tools this conversation declared (or would declare), for `/status`. */
  getWebTools(): string[] {
    return this.#s.frame.webToolNames();
  }

  /** Turns the web tools on or off for this chat (saved; the model is told at the next turn). */
  setWeb(on: boolean): void {
    this.#s.frame.webOff = !on;
    this.#s.saveMeta();
  }
}
