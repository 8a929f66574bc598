/**
 * The parts one session is made of, wired together: its conversation
 * (history, frame, context tracking, usage), its tools and model, its
 * grants, its job queue and steering inbox, its waits for a person, who it
 * is and how its record reads. `InteractiveSession` is what callers drive;
 * this is where its parts are built, opened (setup, then a new record or
 * the saved one), and read for a turn or a save.
 */
import { type Clock, systemClock } from '../clock.js';
import { type Logger, silentLogger } from '../logger.js';
import { getModelInfo, type ModelInfo } from '../provider/models.js';
import { webToolDefinitions } from '../provider/web-tools.js';
import { Sandbox } from '../sandbox/sandbox.js';
import { validateSessionId } from '../store/index.js';
import { SESSION_SCHEMA_VERSION, type SessionMeta } from '../store/types.js';
import { createBuiltinTools } from '../tools/index.js';
import type { Tool } from '../tools/types.js';
import { ContextMeter } from './context-meter.js';
import { ContextWindowTracker } from './context-tracker.js';
import { ConversationFrameState } from './conversation-frame.js';
import type { TypedEmitter } from './emitter.js';
import { SessionGrants } from './grants.js';
import { DEFAULT_QUEUE_LIMIT, JobQueue } from './job-queue.js';
import { PausedTurnSlot } from './paused-turn.js';
import { DEFAULT_PERMISSION_TIMEOUT_MS, PermissionGate } from './permissions.js';
import { SessionPersistence } from './persistence.js';
import { loadSessionRecord } from './resume.js';
import { SessionIdentity } from './session-identity.js';
import { SessionMeter } from './session-meter.js';
import {
  DEFAULT_AUTO_COMPACT_THRESHOLD,
  type InteractiveSessionOptions,
  type SubmitOptions,
  validThreshold,
} from './session-options.js';
import { restoreFromRecord } from './session-restore.js';
import { SteeringInbox } from './steering.js';
import { loadSessionSetup } from './system-prompt.js';
import { toolDefinitions, type WaitingCall } from './tool-runner.js';
import type { TurnState } from './turn.js';
import { buildTurnState } from './turn-state.js';
import type { CompactEvent, ContextWindowState, HistoryMessage, SessionEvents } from './types.js';

/** One session's parts. */
export class SessionParts {
  readonly options: InteractiveSessionOptions;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The built-in tools (or the caller's), as the project setup leaves them. */
  tools: Tool[];
  readonly sandbox: Sandbox;
  /** Prompts, resumed waits and compactions, one at a time. */
  readonly queue: JobQueue;
  readonly gate: PermissionGate;
  readonly persistence: SessionPersistence;
  readonly history: HistoryMessage[] = [];
  readonly tracker: ContextWindowTracker;
  readonly usage: SessionMeter;
  readonly meter: ContextMeter;
  readonly grants: SessionGrants;
  readonly steering = new SteeringInbox();
  /** Id, name, owner, dates, and the session this one was forked from. */
  readonly who: SessionIdentity;
  model: string;
  modelInfo: ModelInfo;
  /** When the context is full enough to compact before a prompt; false: never. */
  threshold: number | false;
  /** The conversation's frozen system and tools, and its web setting. */
  readonly frame: ConversationFrameState;
  /** What the project asks compaction to keep. */
  compactInstructions: string | undefined;
  /** The turn waiting for a person; only once its host's notes are stored may it outlive the process. */
  readonly paused = new PausedTurnSlot();
  readonly #emitter: TypedEmitter<SessionEvents>;
  readonly #compact: (signal: AbortSignal) => Promise<CompactEvent>;
  #lastEmitted = '';

  /** `emitter` is the session its events go out from; `compact` compacts before a turn's request when full. */
  constructor(
    options: InteractiveSessionOptions,
    emitter: TypedEmitter<SessionEvents>,
    compact: (signal: AbortSignal) => Promise<CompactEvent>,
  ) {
    this.options = options;
    this.#emitter = emitter;
    this.#compact = compact;
    this.logger = options.logger ?? silentLogger;
    this.clock = options.clock ?? systemClock;
    this.tools = options.tools ?? createBuiltinTools();
    this.sandbox = options.sandbox ?? new Sandbox();
    this.queue = new JobQueue(options.queueLimit ?? DEFAULT_QUEUE_LIMIT);
    // The deadline the waiting turn was saved with: the record and the gate's one timer agree.
    this.gate = new PermissionGate(emitter, {
      clock: this.clock,
      timeoutMs: this.permissionTimeoutMs,
      deadline: () => this.paused.current?.deadline,
    });
    this.grants = new SessionGrants(options.permissionMode ?? 'default', () => this.saveMeta());
    this.threshold = validThreshold(options.autoCompactThreshold ?? DEFAULT_AUTO_COMPACT_THRESHOLD);
    this.model = options.model ?? options.provider.defaultModel;
    this.modelInfo = this.describe(this.model);
    this.tracker = new ContextWindowTracker({ maxTokens: this.modelInfo.contextWindow });
    this.usage = new SessionMeter(options.cache ?? 'auto', this.history, this.clock);
    this.meter = new ContextMeter(this.tracker, (state) => this.emitContext(state));
    this.frame = new ConversationFrameState({
      tools: () => this.currentTools(),
      webTools: () => this.webTools(),
      mode: () => this.grants.mode,
      modelInfo: () => this.modelInfo,
      clock: this.clock,
    });
    this.who = new SessionIdentity(options, this.clock.now());
    const onError = (error: Error) => emitter.emit('save_error', error);
    this.persistence = new SessionPersistence({ store: options.sessionStore, logger: this.logger, onError });
  }

  /** How long a permission request waits for an answer. */
  get permissionTimeoutMs(): number {
    return this.options.permissionTimeoutMs ?? DEFAULT_PERMISSION_TIMEOUT_MS;
  }

  /**
   * Loads the project's setup (context files, tools, system prompt), then
   * creates the record or takes the saved one back (resumed or forked).
   */
  async open(): Promise<void> {
    const options = this.options;
    const setup = await loadSessionSetup({
      cwd: options.cwd,
      tools: this.tools,
      sandbox: this.sandbox,
      web: this.webTools().length > 0,
      projectAccess: options.projectAccess,
      base: options.systemPrompt,
      logger: this.logger,
    });
    this.tools = setup.tools;
    this.frame.system = setup.system;
    this.compactInstructions = setup.compactInstructions;
    this.meter.frame({ system: setup.system, tools: toolDefinitions(this.tools) });
    const resumeId = options.resumeSessionId;
    if (resumeId === undefined) {
      await this.persistence.create([], this.meta());
      return;
    }
    const record = await loadSessionRecord(options.sessionStore, validateSessionId(resumeId));
    const model = restoreFromRecord(
      record,
      {
        history: this.history,
        frame: this.frame,
        grants: this.grants,
        tracker: this.tracker,
        usage: this.usage,
        persistence: this.persistence,
        paused: this.paused,
        describe: (name) => this.describe(name),
      },
      { resuming: this.who.resuming, keepModel: options.model !== undefined },
    );
    if (model) [this.model, this.modelInfo] = [model.model, model.info];
    const renamed = this.who.adopt(record);
    if (!this.who.resuming) await this.persistence.create(this.history, this.meta());
    else if (renamed) this.saveMeta();
  }

  /** A model's limits, as the provider (or the built-in registry) knows them. */
  describe(model: string): ModelInfo {
    return this.options.provider.describeModel?.(model) ?? getModelInfo(model, {}, this.logger);
  }

  /** Says the context state when it changed since it was last said. */
  emitContext(state: ContextWindowState): void {
    const key = JSON.stringify(state);
    if (key === this.#lastEmitted) return;
    this.#lastEmitted = key;
    this.#emitter.emit('context_update', state);
  }

  /** Saves the record's meta (not the history). */
  readonly saveMeta = (): void => void this.persistence.updateMeta(this.meta());

  /** The record's meta as it stands now. */
  meta(): SessionMeta {
    return {
      version: SESSION_SCHEMA_VERSION,
      ...this.who.recordFields(),
      updatedAt: new Date(this.clock.now()).toISOString(),
      model: this.model,
      permissionMode: this.grants.mode,
      contextState: this.tracker.getState(),
      ...(this.tracker.reportedTokens === undefined
        ? {}
        : { lastReportedTokens: this.tracker.reportedTokens }),
      messageCount: this.history.length,
      ...(this.grants.list().length > 0 ? { allowedScopes: this.grants.list() } : {}),
      ...this.usage.recordField(),
      ...this.frame.recordFields(),
      ...this.paused.recordField(),
    };
  }

  /** Every tool there is now: the built-in ones and those of the tool source (MCP servers come and go). */
  currentTools(): Tool[] {
    return [...this.tools, ...(this.options.toolSource?.tools() ?? [])];
  }

  /** The API's web tools this session's model takes under its settings (none without `web`). */
  webTools() {
    return this.options.web ? webToolDefinitions(this.options.web, this.modelInfo) : [];
  }

  /** What a turn (or a compaction, an aside) works with now. */
  turnState(submitOptions: SubmitOptions = {}): TurnState {
    const permissionTimeoutMs = this.permissionTimeoutMs;
    const parts = {
      options: this.options,
      history: this.history,
      frame: this.frame.forRequest(),
      tools: this.currentTools(),
      provider: this.usage.wrap(this.options.provider),
      model: this.model,
      modelInfo: this.modelInfo,
      meter: this.meter,
      emitter: this.#emitter,
      gate: this.gate,
      grants: this.grants,
      clock: this.clock,
      logger: this.logger,
      permissionTimeoutMs,
      steering: this.steering,
      // Saved before the request goes out, so the wait is in the record before anyone is asked.
      pause: (waiting: WaitingCall) =>
        this.paused.pause(
          waiting,
          this.clock.now() + permissionTimeoutMs,
          () => void this.persistence.saveTurn(this.history, this.meta()),
          this.saveMeta,
        ),
      compact: this.#compact,
    };
    return buildTurnState(parts, submitOptions);
  }
}
