/**
 * A small typed event emitter. Unlike node:events, an `error` event without
 * a listener does not throw (the session reports errors through its promises
 * too), and a listener that throws is logged instead of breaking the turn.
 */
import type { Logger } from '../logger.js';

type Listener<A extends unknown[]> = (...args: A) => void;
type AnyListener = (...args: unknown[]) => void;

/** Typed on/off/once/emit over an event map of tuples. */
export class TypedEmitter<Events extends { [K in keyof Events]: unknown[] }> {
  readonly #listeners = new Map<keyof Events, Set<AnyListener>>();
  readonly #logger: Logger | undefined;

  constructor(logger?: Logger) {
    this.#logger = logger;
  }

  on<K extends keyof Events>(event: K, listener: Listener<Events[K]>): this {
    let set = this.#listeners.get(event);
    if (!set) {
      set = new Set();
      this.#listeners.set(event, set);
    }
    set.add(listener as unknown as AnyListener);
    return this;
  }

  off<K extends keyof Events>(event: K, listener: Listener<Events[K]>): this {
    this.#listeners.get(event)?.delete(listener as unknown as AnyListener);
    return this;
  }

  once<K extends keyof Events>(event: K, listener: Listener<Events[K]>): this {
    const wrapped: Listener<Events[K]> = (...args) => {
      this.off(event, wrapped);
      listener(...args);
    };
    return this.on(event, wrapped);
  }

  listenerCount<K extends keyof Events>(event: K): number {
    return this.#listeners.get(event)?.size ?? 0;
  }

  /** Calls every listener of `event`; returns whether there was any. */
  emit<K extends keyof Events>(event: K, ...args: Events[K]): boolean {
    const set = this.#listeners.get(event);
    if (!set || set.size === 0) return false;
    for (const listener of [...set]) {
      try {
        (listener as unknown as Listener<Events[K]>)(...args);
      } catch (err) {
        this.#logger?.error({ err, event: String(event) }, 'session event listener threw');
      }
    }
    return true;
  }
}
