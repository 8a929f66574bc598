/**
 * The permission gate: asks whoever listens for `permission_request` and
 * waits for the first answer. Nobody listening, a timeout, or an abort all
 * deny; answers to unknown or already settled requests are ignored.
 */
import { randomBytes } from 'node:crypto';
import type { Clock, TimerHandle } from '../clock.js';
import type { TypedEmitter } from './emitter.js';
import type { PermissionAnswer, PermissionRequest, SessionEvents } from './types.js';

/** How a permission request ended. Everything but `allow` / `allow-session` denies. */
export type PermissionOutcome = 'allow' | 'allow-session' | 'deny' | 'timeout' | 'unanswered' | 'aborted';

/** Default time to wait for an answer: 10 minutes. */
export const DEFAULT_PERMISSION_TIMEOUT_MS = 600_000;

interface Pending {
  settle: (outcome: PermissionOutcome) => void;
}

/** Normalizes the accepted answer forms. */
export function normalizeAnswer(answer: PermissionAnswer): 'allow' | 'allow-session' | 'deny' {
  if (answer === true || answer === 'allow') return 'allow';
  if (answer === 'allow-session') return 'allow-session';
  return 'deny';
}

/** Asks for permission through the session's `permission_request` event. */
export class PermissionGate {
  readonly #pending = new Map<string, Pending>();
  readonly #emitter: TypedEmitter<SessionEvents>;
  readonly #clock: Clock;
  readonly #timeoutMs: number;

  constructor(emitter: TypedEmitter<SessionEvents>, clock: Clock, timeoutMs: number) {
    this.#emitter = emitter;
    this.#clock = clock;
    this.#timeoutMs = timeoutMs;
  }

  /** Emits a request and resolves with its outcome. */
  request(request: Omit<PermissionRequest, 'id'>, signal: AbortSignal): Promise<PermissionOutcome> {
    if (signal.aborted) return Promise.resolve('aborted');
    if (this.#emitter.listenerCount('permission_request') === 0) return Promise.resolve('unanswered');
    // Short ids: they travel in button payloads (Telegram allows 64 bytes).
    const id = randomBytes(6).toString('base64url');
    return new Promise<PermissionOutcome>((resolve) => {
      let timer: TimerHandle | undefined;
      const onAbort = () => settle('aborted');
      const settle = (outcome: PermissionOutcome) => {
        if (!this.#pending.delete(id)) return;
        if (timer !== undefined) this.#clock.clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      this.#pending.set(id, { settle });
      timer = this.#clock.setTimeout(() => settle('timeout'), this.#timeoutMs);
      signal.addEventListener('abort', onAbort, { once: true });
      this.#emitter.emit('permission_request', { id, ...request });
    });
  }

  /** Answers a pending request; false when the id is unknown or already answered. */
  resolve(id: string, answer: PermissionAnswer): boolean {
    const pending = this.#pending.get(id);
    if (!pending) return false;
    pending.settle(normalizeAnswer(answer));
    return true;
  }

  /** Denies every pending request (abort, close). */
  denyAll(): void {
    for (const pending of [...this.#pending.values()]) pending.settle('aborted');
  }

  /** Number of requests waiting for an answer. */
  get pendingCount(): number {
    return this.#pending.size;
  }
}
