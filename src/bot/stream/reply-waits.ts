/**
 * Waits for the delivery of a reply's messages (checkpoint, finish): each
 * wait ends when every segment it covers is delivered or given up.
 */
import { isSettled, type Segment } from './segment.js';

/** The open delivery waits of one reply. */
export class DeliveryWaits {
  #waits: { segments: Segment[]; resolve: () => void }[] = [];

  /** Resolves when every one of `segments` is settled. */
  wait(segments: readonly Segment[]): Promise<void> {
    if (segments.every(isSettled)) return Promise.resolve();
    return new Promise((resolve) => this.#waits.push({ segments: [...segments], resolve }));
  }

  /**
   * A relayout replaced the segments: every open wait also covers the new
   * ones, before any of them is queued, so no wait can end on the old layout.
   */
  cover(segments: readonly Segment[]): void {
    for (const w of this.#waits) for (const s of segments) if (!w.segments.includes(s)) w.segments.push(s);
  }

  /** Something about a segment changed: waits whose segments are all settled end. */
  check(): void {
    if (this.#waits.length === 0) return;
    const ready = this.#waits.filter((w) => w.segments.every(isSettled));
    if (ready.length === 0) return;
    this.#waits = this.#waits.filter((w) => !ready.includes(w));
    for (const w of ready) w.resolve();
  }
}
