/**
 * InteractiveSession: one persisted agent conversation. It queues prompts,
 * runs the agent loop with tools under a permission mode, tracks the context
 * window, compacts, aborts, and saves itself after every turn.
 */
import { type Clock, systemClock } from '../clock.js';
import { SwitchboardError } from '../errors.js';
import { type Logger, silentLogger } from '../logger.js';
import { getModelInfo, type ModelInfo } from '../provider/models.js';
import { webToolDefinitions } from '../provider/web-tools.js';
import { Sandbox } from '../sandbox/sandbox.js';
import { validateSessionId, validateSessionName } from '../store/index.js';
import { SESSION_SCHEMA_VERSION, type SessionMeta } from '../store/types.js';
import { createBuiltinTools } from '../tools/index.js';
import type { Tool } from '../tools/types.js';
import { compactHistory } from './compaction.js';
import { ContextMeter } from './context-meter.js';
import { ContextWindowTracker } from './context-tracker.js';
import { ConversationFrameState } from './conversation-frame.js';
import { TypedEmitter } from './emitter.js';
import { SessionGrants } from './grants.js';
import type { SubmitInput } from './history.js';
import { promptFor } from './incoming-files.js';
import { DEFAULT_QUEUE_LIMIT, JobQueue } from './job-queue.js';
import { type PausedAnswer, type PausedTurn, PausedTurnSlot, resumeTurn } from './paused-turn.js';
import { DEFAULT_PERMISSION_TIMEOUT_MS, PermissionGate } from './permissions.js';
import { SessionPersistence } from './persistence.js';
import { loadSessionRecord } from './resume.js';
import { SessionIdentity } from './session-identity.js';
import { SessionMeter } from './session-meter.js';
import {
  checkPermissionMode,
  DEFAULT_AUTO_COMPACT_THRESHOLD,
  type InteractiveSessionOptions,
  type SessionHandle,
  type SubmitOptions,
  validThreshold,
} from './session-options.js';
import { restoreFromRecord } from './session-restore.js';
import { answerAside } from './side-question.js';
import { SteeringInbox } from './steering.js';
import { loadSessionSetup } from './system-prompt.js';
import { toolDefinitions, type WaitingCall } from './tool-runner.js';
import { runTurnInSandbox, type TurnOutcome, type TurnState } from './turn.js';
import { buildTurnState } from './turn-state.js';
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
  readonly #options: InteractiveSessionOptions;
  readonly #clock: Clock;
  readonly #logger: Logger;
  #tools: Tool[];
  readonly #sandbox: Sandbox;
  readonly #queue: JobQueue;
  readonly #gate: PermissionGate;
  readonly #persistence: SessionPersistence;
  readonly #history: HistoryMessage[] = [];
  readonly #tracker: ContextWindowTracker;
  readonly #usage: SessionMeter;
  readonly #meter: ContextMeter;
  readonly #grants: SessionGrants;
  readonly #steering = new SteeringInbox();
  /** Id, name, owner, dates, and the session this one was forked from. */
  readonly #who: SessionIdentity;
  #model: string;
  #modelInfo: ModelInfo;
  #threshold: number | false;
  /** The conversation's frozen system and tools, and its web setting. */
  readonly #frame: ConversationFrameState;
  #compactInstructions: string | undefined;
  #lastEmitted = '';
  #closed = false;
  /** The turn waiting for a person; only once {@link notePausedTurn} stored it may it outlive the process. */
  readonly #paused = new PausedTurnSlot();

  /** Creates and awaits a session: `ready` resolved, or its error thrown. */
  static async open(options: InteractiveSessionOptions): Promise<InteractiveSession> {
    const session = new InteractiveSession(options);
    await session.ready;
    return session;
  }

  constructor(options: InteractiveSessionOptions) {
    const logger = options.logger ?? silentLogger;
    super(logger);
    this.#options = options;
    this.#logger = logger;
    this.#clock = options.clock ?? systemClock;
    this.#tools = options.tools ?? createBuiltinTools();
    this.#sandbox = options.sandbox ?? new Sandbox();
    this.#queue = new JobQueue(options.queueLimit ?? DEFAULT_QUEUE_LIMIT);
    const permissionTimeoutMs = options.permissionTimeoutMs ?? DEFAULT_PERMISSION_TIMEOUT_MS;
    // The deadline the waiting turn was saved with: the record and the gate's one timer agree.
    this.#gate = new PermissionGate(this, {
      clock: this.#clock,
      timeoutMs: permissionTimeoutMs,
      deadline: () => this.#paused.current?.deadline,
    });
    this.#grants = new SessionGrants(options.permissionMode ?? 'default', () => this.#saveMeta());
    this.#threshold = validThreshold(options.autoCompactThreshold ?? DEFAULT_AUTO_COMPACT_THRESHOLD);
    this.#model = options.model ?? options.provider.defaultModel;
    this.#modelInfo = this.#describe(this.#model);
    this.#tracker = new ContextWindowTracker({ maxTokens: this.#modelInfo.contextWindow });
    this.#usage = new SessionMeter(options.cache ?? 'auto', this.#history, this.#clock);
    this.#meter = new ContextMeter(this.#tracker, (state) => this.#emitContext(state));
    this.#frame = new ConversationFrameState({
      tools: () => this.#currentTools(),
      webTools: () => this.#webTools(),
      mode: () => this.#grants.mode,
      modelInfo: () => this.#modelInfo,
      clock: this.#clock,
    });
    this.#who = new SessionIdentity(options, this.#clock.now());
    const onError = (error: Error) => this.emit('save_error', error);
    this.#persistence = new SessionPersistence({ store: options.sessionStore, logger, onError });
    this.ready = this.#init();
    // `ready` may be ignored by a caller that only submits; submit() rethrows.
    this.ready.catch(() => undefined);
  }

  async #init(): Promise<void> {
    const options = this.#options;
    const setup = await loadSessionSetup({
      cwd: options.cwd,
      tools: this.#tools,
      sandbox: this.#sandbox,
      web: this.#webTools().length > 0,
      projectAccess: options.projectAccess,
      base: options.systemPrompt,
      logger: this.#logger,
    });
    this.#tools = setup.tools;
    this.#frame.system = setup.system;
    this.#compactInstructions = setup.compactInstructions;
    this.#meter.frame({ system: setup.system, tools: toolDefinitions(this.#tools) });
    const resumeId = this.#options.resumeSessionId;
    if (resumeId === undefined) {
      await this.#persistence.create([], this.#meta());
      return;
    }
    const record = await loadSessionRecord(this.#options.sessionStore, validateSessionId(resumeId));
    const model = restoreFromRecord(
      record,
      {
        history: this.#history,
        frame: this.#frame,
        grants: this.#grants,
        tracker: this.#tracker,
        usage: this.#usage,
        persistence: this.#persistence,
        paused: this.#paused,
        describe: (name) => this.#describe(name),
      },
      { resuming: this.#who.resuming, keepModel: this.#options.model !== undefined },
    );
    if (model) [this.#model, this.#modelInfo] = [model.model, model.info];
    const renamed = this.#who.adopt(record);
    if (!this.#who.resuming) await this.#persistence.create(this.#history, this.#meta());
    else if (renamed) this.#saveMeta();
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
    const job = this.#queue.push((signal) => this.#turn(input, signal, options));
    if (job.startedNow) await job.settled;
    return { completed: job.completed };
  }

  async #turn(input: SubmitInput, signal: AbortSignal, options: SubmitOptions): Promise<TurnResult> {
    const { message: prompt, refused } = await promptFor(input, this.#turnState(), this.#sandbox);
    for (const why of refused) this.emit('notice', why);
    if (this.#meter.crosses(this.#history, prompt, this.#threshold)) {
      await this.#compact('auto', undefined, signal).catch((err: unknown) => {
        this.#logger.warn({ err }, 'auto-compaction failed; the turn goes on');
      });
    }
    if (signal.aborted) throw new SwitchboardError('ABORTED', 'Stopped before the reply started.');
    // A new prompt while a turn waited (after a restart): that wait is over, its calls unanswered.
    this.#paused.take();
    this.#frame.advance(this.#history);
    return this.#steered((state) => runTurnInSandbox(state, this.#sandbox, prompt, signal), options);
  }

  /** Runs a turn with the steering inbox open, then saves it and says how it ended. */
  async #steered(
    run: (state: TurnState) => Promise<TurnOutcome>,
    options: SubmitOptions,
  ): Promise<TurnResult> {
    this.#steering.open();
    const outcome = await run(this.#turnState(options)).finally(() => this.#steering.close());
    await this.#persistence.saveTurn(this.#history, this.#meta());
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
    const paused = this.#closed ? undefined : this.#paused.take();
    if (!paused)
      throw new SwitchboardError(
        'SESSION_BUSY',
        'This request has expired: nothing waits for it. Ask again.',
      );
    this.#saveMeta(); // answered: a later press, here or elsewhere, finds nothing waiting
    const job = this.#queue.push((signal) =>
      this.#steered((state) => resumeTurn(state, this.#sandbox, paused, answer, signal), options),
    );
    if (job.startedNow) await job.settled;
    return { completed: job.completed };
  }

  /** The turn waiting for a person (a copy), if one does. */
  pausedTurn(): PausedTurn | undefined {
    const paused = this.#paused.current;
    return paused ? { ...paused } : undefined;
  }

  /**
   * Adds the host's notes (who asked, the prompt's ids) to the waiting turn
   * and saves them; resolves once they are stored, so a prompt shown after it
   * can be answered by any process.
   */
  async notePausedTurn(host: Record<string, unknown>): Promise<void> {
    await this.#paused.note(host, async () => {
      await this.#persistence.saveTurn(this.#history, this.#meta());
      const failed = await this.#persistence.lastResult();
      return this.#persistence.enabled && !failed;
    });
  }

  /**
   * Lets go of a turn that waits for a person without recording an end: the
   * saved record keeps it waiting, for the next process to resume. Nothing
   * of this session is saved afterwards. False (and nothing done) when no
   * turn waits, or its wait was not stored by {@link notePausedTurn}.
   */
  suspend(): boolean {
    if (!this.#paused.isStored()) return false;
    this.#persistence.freeze();
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
      () => this.#queue.push((signal) => this.#compact('manual', focus, signal)).completed,
    );
    // Like `completed`, a compaction nobody awaits must not become an unhandled rejection.
    done.catch(() => undefined);
    return done;
  }

  async #compact(trigger: CompactEvent['trigger'], focus: string | undefined, signal: AbortSignal) {
    try {
      const { call } = this.#turnState();
      const event = await compactHistory(
        {
          ...call,
          history: this.#history,
          meter: this.#meter,
          clock: this.#clock,
          logger: this.#logger,
          hooks: this.#options.hooks ?? {},
          compactInstructions: this.#compactInstructions,
        },
        trigger,
        focus,
        signal,
      );
      this.emit('compact', event);
      this.#emitContext(event.after);
      this.#frame.restart();
      await this.#persistence.replace(this.#history, this.#meta());
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
    this.#queue.clear();
    this.#queue.abortCurrent();
  }

  /**
   * Adds a message to the running turn: it joins at the turn's next model
   * request (after pending tool results). Resolves true once it has, false
   * when no turn runs or the turn ended without another request; then the
   * caller submits it as usual.
   */
  steer(input: { text: string; author?: string }): Promise<boolean> {
    if (this.#closed) return Promise.resolve(false);
    return this.#steering.push(input);
  }

  /**
   * Answers a side question from the conversation so far, at once, even
   * while a turn runs; neither the question nor the answer enters the
   * history. Its usage is billed to the session.
   */
  async askAside(question: { text: string; author?: string }, signal?: AbortSignal): Promise<string> {
    await this.ready;
    return answerAside(this.#turnState(), question, signal ?? new AbortController().signal);
  }

  /** True while a turn or a compaction runs. */
  isRunning(): boolean {
    return this.#queue.busy;
  }

  /** Prompts and compactions waiting behind the running one. */
  queuedCount(): number {
    return this.#queue.size;
  }

  /** Current context window usage (as `context_update` reports it). */
  getContextState(): ContextWindowState {
    return this.#tracker.getState();
  }

  /** A copy of the conversation, notices and summaries included. */
  getFullHistory(): HistoryMessage[] {
    return this.#history.map((m) => ({ ...m, content: [...m.content] }));
  }

  /** The session's name, if it has one. */
  getName(): string | undefined {
    return this.#who.name;
  }

  /** Renames the session (validated: no path characters) and saves the record. */
  setName(name: string): void {
    this.#who.name = validateSessionName(name);
    this.#saveMeta();
  }

  /** What this session's model requests used, per day and model (a copy). */
  getUsage(): UsageLedger {
    return this.#usage.ledger();
  }

  /**
   * Adds a voice note transcribed for this session to its usage ledger (the
   * bot transcribes before the turn; `seconds` is 0 when the length is
   * unknown) and saves the record.
   */
  recordTranscription(model: string, seconds: number): void {
    this.#usage.recordTranscription(model, seconds);
    this.#saveMeta();
  }

  /** The model this session sends its requests to. */
  getModel(): string {
    return this.#model;
  }

  /** Owner key saved with the session (`platform:userId`), if any. */
  getOwner(): string | undefined {
    return this.#who.owner;
  }

  /** Id and permission mode; `setPermissionMode` applies to the next tool call and is saved. */
  getSession(): SessionHandle {
    return {
      getSessionId: () => this.#who.id,
      getPermissionMode: () => this.#grants.mode,
      lastSave: () => this.#persistence.lastResult(),
      setPermissionMode: (mode) => {
        this.#grants.mode = checkPermissionMode(mode);
        this.#saveMeta();
      },
      listGrants: () => this.#grants.list(),
      revokeGrant: (scope) => this.#grants.revoke(scope),
    };
  }

  /** Changes the auto-compaction threshold (a fraction in (0, 1]) or turns it off. */
  setAutoCompactThreshold(threshold: number | false): void {
    this.#threshold = validThreshold(threshold);
  }

  /** Waits for pending saves. The session accepts no prompts afterwards. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.ready.catch(() => undefined);
    await this.#persistence.flush();
  }

  #describe(model: string): ModelInfo {
    return this.#options.provider.describeModel?.(model) ?? getModelInfo(model, {}, this.#logger);
  }

  /** The model this session talks to, with its window and output limit (for /status). */
  getModelInfo(): ModelInfo {
    return this.#modelInfo;
  }

  #emitContext(state: ContextWindowState): void {
    const key = JSON.stringify(state);
    if (key === this.#lastEmitted) return;
    this.#lastEmitted = key;
    this.emit('context_update', state);
  }

  #saveMeta = (): void => void this.#persistence.updateMeta(this.#meta());

  #meta(): SessionMeta {
    return {
      version: SESSION_SCHEMA_VERSION,
      ...this.#who.recordFields(),
      updatedAt: new Date(this.#clock.now()).toISOString(),
      model: this.#model,
      permissionMode: this.#grants.mode,
      contextState: this.#tracker.getState(),
      ...(this.#tracker.reportedTokens === undefined
        ? {}
        : { lastReportedTokens: this.#tracker.reportedTokens }),
      messageCount: this.#history.length,
      ...(this.#grants.list().length > 0 ? { allowedScopes: this.#grants.list() } : {}),
      ...this.#usage.recordField(),
      ...this.#frame.recordFields(),
      ...this.#paused.recordField(),
    };
  }

  /** Every tool there is now: the built-in ones and those of the tool source (MCP servers come and go). */
  #currentTools() {
    return [...this.#tools, ...(this.#options.toolSource?.tools() ?? [])];
  }

  /** The API's web tools this session's model takes under its settings (none without `web`). */
  #webTools() {
    return this.#options.web ? webToolDefinitions(this.#options.web, this.#modelInfo) : [];
  }

  /**
   * Whether the model may use its web tools in this chat: `unavailable` when
   * the deployment or the model offers none.
   */
  getWeb(): 'on' | 'off' | 'unavailable' {
    return this.#frame.web();
  }

  /** The names of the web tools this conversation declared (or would declare), for `/status`. */
  getWebTools(): string[] {
    return this.#frame.webToolNames();
  }

  /** Turns the web tools on or off for this chat (saved; the model is told at the next turn). */
  setWeb(on: boolean): void {
    this.#frame.webOff = !on;
    this.#saveMeta();
  }

  #turnState(submitOptions: SubmitOptions = {}): TurnState {
    const permissionTimeoutMs = this.#options.permissionTimeoutMs ?? DEFAULT_PERMISSION_TIMEOUT_MS;
    const parts = {
      options: this.#options,
      history: this.#history,
      frame: this.#frame.forRequest(),
      tools: this.#currentTools(),
      provider: this.#usage.wrap(this.#options.provider),
      model: this.#model,
      modelInfo: this.#modelInfo,
      meter: this.#meter,
      emitter: this,
      gate: this.#gate,
      grants: this.#grants,
      clock: this.#clock,
      logger: this.#logger,
      permissionTimeoutMs,
      steering: this.#steering,
      // Saved before the request goes out, so the wait is in the record before anyone is asked.
      pause: (waiting: WaitingCall) =>
        this.#paused.pause(
          waiting,
          this.#clock.now() + permissionTimeoutMs,
          () => void this.#persistence.saveTurn(this.#history, this.#meta()),
          this.#saveMeta,
        ),
      compact: (signal: AbortSignal) => this.#compact('auto', undefined, signal),
    };
    return buildTurnState(parts, submitOptions);
  }
}
