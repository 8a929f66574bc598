/**
 * The permission gate: asks whoever listens for `permission_request` and
 * waits for the first answer. The gate keeps no table of waiting requests:
 * each request carries its own `answer`, and its own single timer ends it
 * at its deadline. Nobody listening, the deadline, or an abort all deny;
 * an answer after the wait is over changes nothing.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { TypedEmitter } from './emitter.js';
import type { PermissionAnswer, PermissionOutcome, PermissionRequest, SessionEvents } from './types.js';

export type { PermissionOutcome } from './types.js';

/** Default time to wait for an answer: 10 minutes. */
export const DEFAULT_PERMISSION_TIMEOUT_MS = 600_000;

/** Normalizes the accepted answer forms. */
export function normalizeAnswer(answer: PermissionAnswer): 'allow' | 'allow-session' | 'deny' {
  if (answer === true || answer === 'allow') return 'allow';
  if (answer === 'allow-session') return 'allow-session';
  return 'deny';
}

/** What {@link PermissionGate} works with. */
export interface PermissionGateOptions {
  clock: Clock;
  /** How long a request waits for an answer. */
  timeoutMs: number;
  /**
   * The deadline already set for the request about to go out (the one its
   * paused turn was saved with), so the record and the timer name the same
   * moment; default now + `timeoutMs`.
   */
  deadline?: () => number | undefined;
}

/** Asks for permission through the session's `permission_request` event. */
export class PermissionGate {
  readonly #emitter: TypedEmitter<SessionEvents>;
  readonly #options: PermissionGateOptions;

  constructor(emitter: TypedEmitter<SessionEvents>, options: PermissionGateOptions) {
    this.#emitter = emitter;
    this.#options = options;
  }

  /** Emits a request and resolves with its outcome. */
  request(request: Omit<PermissionRequest, 'id'>, signal: AbortSignal): Promise<PermissionOutcome> {
    if (signal.aborted) return Promise.resolve('aborted');
    if (this.#emitter.listenerCount('permission_request') === 0) return Promise.resolve('unanswered');
    const { clock, timeoutMs } = this.#options;
    const deadline = this.#options.deadline?.() ?? clock.now() + timeoutMs;
    // Short lowercase ids: they travel as they are in button payloads (Telegram allows 64 bytes).
    const id = randomBytes(8).readBigUInt64BE().toString(36).slice(0, 12);
    let settle!: (outcome: PermissionOutcome) => boolean;
    const settled = new Promise<PermissionOutcome>((resolve) => {
      let open = true;
      const onAbort = () => settle('aborted');
      const timer = clock.setTimeout(() => settle('timeout'), Math.max(0, deadline - clock.now()));
      settle = (outcome) => {
        if (!open) return false;
        open = false;
        clock.clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        resolve(outcome);
        return true;
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
    const answer = (given: PermissionAnswer) => settle(normalizeAnswer(given));
    this.#emitter.emit('permission_request', { id, ...request, deadline, answer, settled });
    return settled;
  }
}
