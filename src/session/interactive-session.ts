/**
 * InteractiveSession: one persisted agent conversation. It queues prompts,
 * runs the agent loop with tools under a permission mode, tracks the context
 * window, compacts, aborts, and saves itself after every turn.
 */
import { type Clock, systemClock } from '../clock.js';
import { SwitchboardError } from '../errors.js';
import { type Logger, silentLogger } from '../logger.js';
import { Sandbox } from '../sandbox/sandbox.js';
import { newSessionId, validateSessionId, validateSessionName } from '../store/index.js';
import { SESSION_SCHEMA_VERSION, type SessionMeta } from '../store/types.js';
import { createBuiltinTools, scrubbedEnv } from '../tools/index.js';
import type { Tool } from '../tools/types.js';
import { compactHistory } from './compaction.js';
import { ContextWindowTracker } from './context-tracker.js';
import { TypedEmitter } from './emitter.js';
import { type SubmitInput, userMessage } from './history.js';
import { DEFAULT_QUEUE_LIMIT, JobQueue } from './job-queue.js';
import { getModelInfo, type ModelInfo } from './models.js';
import { DEFAULT_PERMISSION_TIMEOUT_MS, PermissionGate } from './permissions.js';
import { SessionPersistence } from './persistence.js';
import { loadProjectContext } from './project-context.js';
import { loadSessionRecord } from './resume.js';
import {
  checkPermissionMode,
  DEFAULT_AUTO_COMPACT_THRESHOLD,
  DEFAULT_STREAM_IDLE_TIMEOUT_MS,
  type InteractiveSessionOptions,
  REQUEST_MAX_TOKENS,
  type SessionHandle,
  validThreshold,
} from './session-options.js';
import { buildSystemPrompt } from './system-prompt.js';
import { toolDefinitions } from './tool-runner.js';
import { DEFAULT_MAX_ITERATIONS, runTurn, type TurnHost } from './turn.js';
import type {
  CompactEvent,
  ContextWindowState,
  HistoryMessage,
  PermissionAnswer,
  PermissionMode,
  SessionEvents,
  TokenUsage,
  TurnResult,
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
  readonly #tools: Tool[];
  readonly #sandbox: Sandbox;
  readonly #queue: JobQueue;
  readonly #gate: PermissionGate;
  readonly #persistence: SessionPersistence;
  readonly #history: HistoryMessage[] = [];
  readonly #tracker: ContextWindowTracker;
  #id: string;
  #name: string | undefined;
  #owner: string | undefined;
  #createdAt: string;
  #forkedFrom: string | undefined;
  #mode: PermissionMode;
  #allowedScopes = new Set<string>();
  #model: string;
  #modelInfo: ModelInfo;
  #threshold: number | false;
  #system = '';
  #compactInstructions: string | undefined;
  #lastEmitted = '';
  #closed = false;

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
    this.#gate = new PermissionGate(
      this,
      this.#clock,
      options.permissionTimeoutMs ?? DEFAULT_PERMISSION_TIMEOUT_MS,
    );
    this.#mode = options.permissionMode ?? 'default';
    this.#threshold = validThreshold(options.autoCompactThreshold ?? DEFAULT_AUTO_COMPACT_THRESHOLD);
    this.#model = options.model ?? options.provider.defaultModel;
    this.#modelInfo = getModelInfo(this.#model, logger);
    this.#tracker = new ContextWindowTracker({ maxTokens: this.#modelInfo.contextWindow });
    this.#createdAt = new Date(this.#clock.now()).toISOString();
    const resuming = options.resumeSessionId !== undefined && !options.forkSession;
    this.#id = resuming ? (options.resumeSessionId as string) : newSessionId(this.#clock.now());
    if (options.sessionName !== undefined) this.#name = validateSessionName(options.sessionName);
    this.#owner = options.owner;
    this.#persistence = new SessionPersistence({
      store: options.sessionStore,
      logger,
      onError: (error) => this.emit('save_error', error),
    });
    this.ready = this.#init(resuming);
    // `ready` may be ignored by a caller that only submits; submit() rethrows.
    this.ready.catch(() => undefined);
  }

  async #init(resuming: boolean): Promise<void> {
    const project = await loadProjectContext(this.#options.cwd, this.#options.projectAccess ?? 'restricted');
    for (const { file, reason } of project.skipped)
      this.#logger.warn({ file, reason }, 'project file not loaded');
    this.#compactInstructions = project.compactInstructions;
    this.#system = buildSystemPrompt({
      cwd: this.#options.cwd,
      tools: this.#tools,
      projectInstructions: project.instructions,
      ...(this.#options.systemPrompt === undefined ? {} : { base: this.#options.systemPrompt }),
    });
    const resumeId = this.#options.resumeSessionId;
    if (resumeId === undefined) {
      await this.#persistence.create([], this.#meta());
      return;
    }
    const record = await loadSessionRecord(this.#options.sessionStore, validateSessionId(resumeId));
    this.#history.push(...record.messages);
    this.#mode = record.permissionMode;
    if (this.#options.model === undefined && record.model) this.#setModel(record.model);
    if (record.lastReportedTokens !== undefined) {
      this.#tracker.reportUsage(
        { inputTokens: record.lastReportedTokens, outputTokens: 0 },
        this.#history.length,
      );
    }
    this.#tracker.update(this.#history, record.contextState?.usedTokens ?? 0);
    this.#owner = record.owner ?? this.#options.owner;
    if (resuming) {
      this.#createdAt = record.createdAt;
      this.#name = this.#name ?? record.name;
      this.#forkedFrom = record.forkedFrom;
      for (const scope of record.allowedScopes ?? []) this.#allowedScopes.add(scope);
      this.#persistence.markExisting(record.messages.length);
      if (this.#options.sessionName !== undefined && this.#name !== record.name) this.#saveMeta();
    } else {
      // A fork is a new session: same history, no inherited approvals.
      this.#forkedFrom = record.id;
      if (this.#options.owner !== undefined) this.#owner = this.#options.owner;
      await this.#persistence.create(this.#history, this.#meta());
    }
  }

  /**
   * Runs a prompt. Idle: runs the turn and resolves after it. Busy: queues it
   * and resolves at once. `completed` settles with the turn's result, or
   * rejects (QUEUE_FULL, ABORTED when cleared, or the turn's error).
   */
  async submit(input: SubmitInput): Promise<{ completed: Promise<TurnResult> }> {
    await this.ready;
    if (this.#closed)
      throw new SwitchboardError('SESSION_BUSY', 'This session was closed; open it again to continue.');
    const job = this.#queue.push((signal) => this.#turn(input, signal));
    if (job.startedNow) await job.settled;
    return { completed: job.completed };
  }

  async #turn(input: SubmitInput, signal: AbortSignal): Promise<TurnResult> {
    const prompt = userMessage(input, this.#clock);
    const max = this.#tracker.getState().maxTokens;
    if (
      this.#threshold !== false &&
      this.#history.length > 0 &&
      this.#tracker.measure([...this.#history, prompt]) >= this.#threshold * max
    ) {
      await this.#compact('auto', undefined, signal).catch((err: unknown) => {
        this.#logger.warn({ err }, 'auto-compaction failed; the turn goes on');
      });
    }
    if (signal.aborted) throw new SwitchboardError('ABORTED', 'Stopped before the reply started.');
    // One sandbox per turn: whatever the turn's commands left running ends with it.
    const sandbox = this.#sandbox.openTurn(this.#options.cwd, this.#clock);
    const outcome = await runTurn({ ...this.#turnHost(), sandbox }, prompt, signal).finally(() =>
      sandbox.close(),
    );
    await this.#persistence.saveTurn(this.#history, this.#meta());
    if (outcome.error && outcome.error.code !== 'ABORTED') {
      this.emit('error', outcome.error);
      throw outcome.error;
    }
    this.emit(outcome.result.state === 'interrupted' ? 'interrupted' : 'complete', outcome.result);
    return outcome.result;
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
      const event = await compactHistory(
        {
          ...this.#turnHost(),
          tools: toolDefinitions(this.#tools),
          hooks: this.#options.hooks ?? {},
          compactInstructions: this.#compactInstructions,
        },
        trigger,
        focus,
        signal,
      );
      this.emit('compact', event);
      this.#emitContext(event.after);
      await this.#persistence.replace(this.#history, this.#meta());
      return event;
    } catch (err) {
      this.emit('error', err as Error);
      throw err;
    }
  }

  /**
   * Stops the running turn (its partial reply is kept as interrupted),
   * denies pending permission prompts, and cancels every queued prompt.
   */
  abort(): void {
    this.#queue.clear();
    this.#gate.denyAll();
    this.#queue.abortCurrent();
  }

  /** Answers a `permission_request`; false when the id is unknown or already answered. */
  resolvePermission(id: string, answer: PermissionAnswer): boolean {
    return this.#gate.resolve(id, answer);
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
    return this.#name;
  }

  /** Renames the session (validated: no path characters) and saves the record. */
  setName(name: string): void {
    this.#name = validateSessionName(name);
    this.#saveMeta();
  }

  /** The model this session sends its requests to. */
  getModel(): string {
    return this.#model;
  }

  /** Owner key saved with the session (`platform:userId`), if any. */
  getOwner(): string | undefined {
    return this.#owner;
  }

  /** Id and permission mode; `setPermissionMode` applies to the next tool call and is saved. */
  getSession(): SessionHandle {
    return {
      getSessionId: () => this.#id,
      getPermissionMode: () => this.#mode,
      setPermissionMode: (mode) => {
        this.#mode = checkPermissionMode(mode);
        this.#saveMeta();
      },
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

  #setModel(model: string): void {
    this.#model = model;
    this.#modelInfo = getModelInfo(model, this.#logger);
    this.#tracker.setMaxTokens(this.#modelInfo.contextWindow);
  }

  #emitContext(state: ContextWindowState): void {
    const key = JSON.stringify(state);
    if (key === this.#lastEmitted) return;
    this.#lastEmitted = key;
    this.emit('context_update', state);
  }

  #saveMeta(): void {
    void this.#persistence.updateMeta(this.#meta());
  }

  #meta(): SessionMeta {
    return {
      version: SESSION_SCHEMA_VERSION,
      id: this.#id,
      ...(this.#name === undefined ? {} : { name: this.#name }),
      ...(this.#owner === undefined ? {} : { owner: this.#owner }),
      createdAt: this.#createdAt,
      updatedAt: new Date(this.#clock.now()).toISOString(),
      model: this.#model,
      permissionMode: this.#mode,
      contextState: this.#tracker.getState(),
      ...(this.#tracker.reportedTokens === undefined
        ? {}
        : { lastReportedTokens: this.#tracker.reportedTokens }),
      messageCount: this.#history.length,
      ...(this.#allowedScopes.size > 0 ? { allowedScopes: [...this.#allowedScopes] } : {}),
      ...(this.#forkedFrom === undefined ? {} : { forkedFrom: this.#forkedFrom }),
    };
  }

  #turnHost(): TurnHost {
    const options = this.#options;
    return {
      history: this.#history,
      provider: options.provider,
      model: this.#model,
      maxTokens: Math.min(REQUEST_MAX_TOKENS, this.#modelInfo.maxOutputTokens),
      system: this.#system,
      tracker: this.#tracker,
      idleTimeoutMs: options.streamIdleTimeoutMs ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS,
      maxIterations: options.maxIterations ?? DEFAULT_MAX_ITERATIONS,
      tools: this.#tools,
      emitter: this,
      gate: this.#gate,
      clock: this.#clock,
      logger: this.#logger,
      cwd: options.cwd,
      env: scrubbedEnv(options.toolEnv ?? process.env),
      permissionTimeoutMs: options.permissionTimeoutMs ?? DEFAULT_PERMISSION_TIMEOUT_MS,
      permissionMode: () => this.#mode,
      isScopeAllowed: (scope) => this.#allowedScopes.has(scope),
      allowScope: (scope) => {
        this.#allowedScopes.add(scope);
        this.#saveMeta();
      },
      refreshContext: () => {
        const state = this.#tracker.update(this.#history);
        this.#emitContext(state);
        return state;
      },
      reportUsage: (usage: TokenUsage) =>
        this.#emitContext(this.#tracker.reportUsage(usage, this.#history.length)),
    };
  }
}
