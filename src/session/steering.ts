/**
 * Messages that join a running turn. A person who writes while the agent
 * works ("no, use the other branch") is heard at the turn's next model
 * request, right after the pending tool results, instead of after the whole
 * turn. The turn loop drains the inbox before each request; a message still
 * waiting when the turn ends (its last request was the final answer) is
 * handed back, so the caller can queue it as a turn of its own.
 */
import type { Clock } from '../clock.js';
import { type SubmitInput, userMessage } from './history.js';
import type { HistoryMessage } from './types.js';

interface Pending {
  input: Exclude<SubmitInput, string>;
  settle: (joined: boolean) => void;
}

/** The messages waiting to join the running turn. */
export class SteeringInbox {
  #pending: Pending[] = [];
  #open = false;

  /** A turn's loop starts: messages may join it. */
  open(): void {
    this.#open = true;
  }

  /**
   * Adds a message; resolves true once it is in a request, false when the
   * turn ended first or no turn loop runs.
   */
  push(input: Exclude<SubmitInput, string>): Promise<boolean> {
    if (!this.#open) return Promise.resolve(false);
    return new Promise((settle) => this.#pending.push({ input, settle }));
  }

  /**
   * Appends the waiting messages to `history` as the person's messages, when
   * the next request answers the person or tool results (not while the model
   * continues a reply of its own).
   */
  drainInto(history: HistoryMessage[], clock: Clock): void {
    if (this.#pending.length === 0 || history.at(-1)?.role !== 'user') return;
    for (const { input, settle } of this.#pending.splice(0)) {
      history.push(userMessage(input, clock).message);
      settle(true);
    }
  }

  /** The turn ended: whatever still waits did not join it. */
  close(): void {
    this.#open = false;
    for (const { settle } of this.#pending.splice(0)) settle(false);
  }
}
