/**
 * The bot state in memory (chat map, delivery window, turns in flight), the
 * journal line of each change, and the schemas of the journal lines and of
 * the whole-file format used before the journals.
 */
import { z } from 'zod';
import { activeTurnSchema, chatBindingSchema } from './schema.js';
import type { ActiveTurn, ChatBinding } from './types.js';

/** `chats.jsonl`: one binding set per line. */
const chatLineSchema = z.object({ chat: z.string(), binding: chatBindingSchema });
/** `turns.jsonl`: a turn begun, or the chat whose turn ended. */
const turnLineSchema = z.union([z.object({ begin: activeTurnSchema }), z.object({ end: z.string() })]);
/** `deliveries.jsonl`: each line is one delivery id as a JSON string. */
const deliveryLineSchema = z.string();

/** The whole-file formats written before the journals (read once, to migrate). */
export const legacySchemas = {
  chats: z.object({ version: z.literal(1), chats: z.record(z.string(), chatBindingSchema) }),
  deliveries: z.object({ version: z.literal(1), ids: z.array(z.string()) }),
  turns: z.object({ version: z.literal(1), turns: z.record(z.string(), activeTurnSchema) }),
};

/**
 * The most recent `capacity` delivery ids: a Set for lookups and a ring for
 * their order, so remembering one more id costs the same at any size.
 */
export class DeliveryWindow {
  readonly #capacity: number;
  readonly #seen = new Set<string>();
  readonly #ring: string[] = [];
  /** Where the next id goes once the ring is full (also its oldest id). */
  #next = 0;

  constructor(capacity: number) {
    this.#capacity = Math.max(1, capacity);
  }

  get size(): number {
    return this.#ring.length;
  }

  /** Remembers `id`; false when it is already in the window. */
  add(id: string): boolean {
    if (this.#seen.has(id)) return false;
    this.#seen.add(id);
    if (this.#ring.length < this.#capacity) {
      this.#ring.push(id);
    } else {
      this.#seen.delete(this.#ring[this.#next] as string);
      this.#ring[this.#next] = id;
      this.#next = (this.#next + 1) % this.#capacity;
    }
    return true;
  }

  /** The ids, oldest first. */
  ids(): string[] {
    return [...this.#ring.slice(this.#next), ...this.#ring.slice(0, this.#next)];
  }
}

/** Everything the bot state store keeps; the journals mirror it. */
export class BotState {
  readonly chats = new Map<string, ChatBinding>();
  readonly turns = new Map<string, ActiveTurn>();
  deliveries: DeliveryWindow;

  constructor(readonly window: number) {
    this.deliveries = new DeliveryWindow(window);
  }

  /** Forgets every delivery id (a damaged deliveries journal starts empty). */
  resetDeliveries(): void {
    this.deliveries = new DeliveryWindow(this.window);
  }

  /** Applies one `chats.jsonl` line; false when it is not one. */
  applyChatLine(value: unknown): boolean {
    const parsed = chatLineSchema.safeParse(value);
    if (!parsed.success) return false;
    this.chats.set(parsed.data.chat, parsed.data.binding as ChatBinding);
    return true;
  }

  /** Applies one `deliveries.jsonl` line; false when it is not one. */
  applyDeliveryLine(value: unknown): boolean {
    const parsed = deliveryLineSchema.safeParse(value);
    if (!parsed.success) return false;
    // After a compaction the journal may repeat ids already in its snapshot: add() skips them.
    this.deliveries.add(parsed.data);
    return true;
  }

  /** Applies one `turns.jsonl` line; false when it is not one. */
  applyTurnLine(value: unknown): boolean {
    const parsed = turnLineSchema.safeParse(value);
    if (!parsed.success) return false;
    if ('begin' in parsed.data) this.turns.set(parsed.data.begin.chat, parsed.data.begin as ActiveTurn);
    else this.turns.delete(parsed.data.end);
    return true;
  }

  /** The live chat map as journal lines. */
  chatLines(): string[] {
    return [...this.chats].map(([chat, binding]) => chatLine(chat, binding));
  }

  /** The delivery window as journal lines. */
  deliveryLines(): string[] {
    return this.deliveries.ids().map((id) => deliveryLine(id));
  }

  /** The turns in flight as journal lines. */
  turnLines(): string[] {
    return [...this.turns.values()].map((turn) => turnBeginLine(turn));
  }
}

/** The `chats.jsonl` line for a binding. */
export const chatLine = (chat: string, binding: ChatBinding): string => JSON.stringify({ chat, binding });
/** The `deliveries.jsonl` line for an id. */
export const deliveryLine = (id: string): string => JSON.stringify(id);
/** The `turns.jsonl` line for a turn begun. */
export const turnBeginLine = (turn: ActiveTurn): string => JSON.stringify({ begin: turn });
/** The `turns.jsonl` line for a turn ended. */
export const turnEndLine = (chat: string): string => JSON.stringify({ end: chat });
