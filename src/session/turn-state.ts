/**
 * How a session's parts become one turn's {@link TurnState}: the request is
 * built from the conversation's frozen frame (not today's tools), and the
 * tools the turn may run are fixed when it starts, so a tool source that
 * changes mid-turn cannot change what the model was offered.
 */
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { ModelInfo } from '../provider/models.js';
import type { Provider } from '../provider/types.js';
import { scrubbedEnv } from '../tools/index.js';
import type { Tool } from '../tools/types.js';
import type { ContextMeter } from './context-meter.js';
import type { TypedEmitter } from './emitter.js';
import { effectiveFrame } from './frame.js';
import type { SessionGrants } from './grants.js';
import type { PermissionGate } from './permissions.js';
import {
  DEFAULT_STREAM_IDLE_TIMEOUT_MS,
  type InteractiveSessionOptions,
  REQUEST_MAX_TOKENS,
  type SubmitOptions,
} from './session-options.js';
import type { SteeringInbox } from './steering.js';
import type { WaitingCall } from './tool-runner.js';
import { DEFAULT_MAX_ITERATIONS, type TurnState } from './turn.js';
import type { CompactEvent, ConversationFrame, HistoryMessage, SessionEvents } from './types.js';

/** The session's parts a turn works with. */
export interface TurnParts {
  options: InteractiveSessionOptions;
  history: HistoryMessage[];
  /** The frame the conversation's requests are built with. */
  frame: ConversationFrame;
  /** Every tool there is now; the turn keeps those the model was offered. */
  tools: Tool[];
  /** The session's provider, metered for its usage ledger. */
  provider: Provider;
  model: string;
  modelInfo: ModelInfo;
  meter: ContextMeter;
  emitter: TypedEmitter<SessionEvents>;
  gate: PermissionGate;
  grants: SessionGrants;
  clock: Clock;
  logger: Logger;
  permissionTimeoutMs: number;
  steering: SteeringInbox;
  /** Records the turn as waiting for a person; see `ToolHost.pause`. */
  pause(waiting: WaitingCall): () => void;
  /** Compacts the history from inside the turn (it already holds the session). */
  compact(signal: AbortSignal): Promise<CompactEvent>;
}

/** Builds one turn's state from the session's parts and the caller's options for it. */
export function buildTurnState(
  parts: TurnParts,
  { sendFile, schedules, beforeRequest }: SubmitOptions = {},
): TurnState {
  const { options, frame, modelInfo } = parts;
  // What the model was told it has; a tool it knows of that is gone now is refused with a reason.
  const offered = effectiveFrame(frame, parts.history).tools.map((t) => t.name);
  const tools = parts.tools.filter((t) => offered.includes(t.name)); // fixed for the whole turn
  return {
    history: parts.history,
    call: {
      provider: parts.provider,
      model: parts.model,
      system: frame.system,
      tools: frame.tools,
      maxTokens: Math.min(REQUEST_MAX_TOKENS, modelInfo.maxOutputTokens),
      maxOutputTokens: modelInfo.maxOutputTokens,
      idleTimeoutMs: options.streamIdleTimeoutMs ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS,
    },
    meter: parts.meter,
    tools: {
      tools,
      offered,
      emitter: parts.emitter,
      gate: parts.gate,
      grants: parts.grants,
      clock: parts.clock,
      logger: parts.logger,
      cwd: options.cwd,
      env: scrubbedEnv(options.toolEnv ?? process.env),
      ...(sendFile ? { sendFile } : {}),
      ...(schedules ? { schedules } : {}),
      permissionTimeoutMs: parts.permissionTimeoutMs,
      pause: parts.pause,
    },
    compactor: { compact: parts.compact },
    maxIterations: options.maxIterations ?? DEFAULT_MAX_ITERATIONS,
    steering: parts.steering,
    ...(beforeRequest ? { beforeRequest } : {}),
  };
}
