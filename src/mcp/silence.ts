/**
 * The silence timer of one MCP request: on the injected clock, it aborts
 * its signal when the server has said nothing for the call timeout, and
 * starts over on every sign of life (a progress notification).
 */
import type { Clock, TimerHandle } from '../clock.js';

/** A running silence timer. */
export interface SilenceTimer {
  /** Aborted once the server has been silent too long. */
  signal: AbortSignal;
  /** Starts the wait over: the server just said something. */
  rearm(): void;
  /** Ends the timer: the request is over. */
  stop(): void;
  /** The timeout, in seconds, for messages. */
  seconds: number;
}

/** Starts a silence timer of `ms` on `clock`. */
export function startSilenceTimer(clock: Clock, ms: number): SilenceTimer {
  const controller = new AbortController();
  let timer: TimerHandle | undefined;
  const stop = () => {
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = undefined;
  };
  const rearm = () => {
    stop();
    if (!controller.signal.aborted) timer = clock.setTimeout(() => controller.abort(), ms);
  };
  rearm();
  return { signal: controller.signal, rearm, stop, seconds: Math.round(ms / 100) / 10 };
}
