/**
 * What the adapter remembers about Slack threads, in bounded memory: which
 * threads the bot takes part in (so replies there need no mention), which
 * thread of each channel was active last (where a slash command typed in the
 * channel goes), who spoke last in a thread (native streams outside DMs are
 * addressed to a person), and which deliveries were already seen.
 */

/** A Set that forgets its oldest entries beyond `limit`. */
export class BoundedSet {
  readonly #items = new Set<string>();
  constructor(readonly limit: number) {}

  has(key: string): boolean {
    return this.#items.has(key);
  }

  /** Adds `key`; returns false when it was already there. */
  add(key: string): boolean {
    if (this.#items.has(key)) return false;
    this.#items.add(key);
    if (this.#items.size > this.limit) {
      const oldest = this.#items.values().next().value;
      if (oldest !== undefined) this.#items.delete(oldest);
    }
    return true;
  }

  delete(key: string): void {
    this.#items.delete(key);
  }
}

/** A Map that forgets its least recently set entries beyond `limit`. */
export class BoundedMap<V> {
  readonly #items = new Map<string, V>();
  constructor(readonly limit: number) {}

  get(key: string): V | undefined {
    return this.#items.get(key);
  }

  set(key: string, value: V): void {
    this.#items.delete(key);
    this.#items.set(key, value);
    if (this.#items.size > this.limit) {
      const oldest = this.#items.keys().next().value;
      if (oldest !== undefined) this.#items.delete(oldest);
    }
  }

  delete(key: string): void {
    this.#items.delete(key);
  }
}

/** The person a native stream in a channel is addressed to. */
export interface Recipient {
  userId: string;
  teamId: string;
}

/** Thread memory of one adapter. */
export class ThreadTracker {
  /** Threads (`channel:ts`) where the bot was mentioned, was written to in a DM, or replied. */
  readonly #joined = new BoundedSet(20_000);
  /** Threads checked with conversations.replies and found without the bot. */
  readonly #notJoined = new BoundedSet(20_000);
  readonly #recentByChannel = new BoundedMap<string>(5_000);
  /** Per person and channel: the thread where that person last talked to the bot. */
  readonly #recentByPerson = new BoundedMap<string>(20_000);
  readonly #recipients = new BoundedMap<Recipient>(20_000);
  /** Event ids already handled, so Slack's redeliveries start nothing twice. */
  readonly events = new BoundedSet(10_000);
  /** Messages (`channel:ts`) already handed on: a mention arrives as both `message` and `app_mention`. */
  readonly messages = new BoundedSet(10_000);

  joined(channel: string, threadTs: string): boolean {
    return this.#joined.has(`${channel}:${threadTs}`);
  }

  /** Known not to involve the bot (a mention would have joined it). */
  knownWithoutBot(channel: string, threadTs: string): boolean {
    return this.#notJoined.has(`${channel}:${threadTs}`);
  }

  join(channel: string, threadTs: string): void {
    this.#notJoined.delete(`${channel}:${threadTs}`);
    this.#joined.add(`${channel}:${threadTs}`);
  }

  markWithoutBot(channel: string, threadTs: string): void {
    this.#notJoined.add(`${channel}:${threadTs}`);
  }

  /**
   * Records activity in a thread: the channel's most recent session thread,
   * and, when a person caused it, that person's most recent one.
   */
  touch(channel: string, threadTs: string, user?: string): void {
    this.#recentByChannel.set(channel, threadTs);
    if (user) this.#recentByPerson.set(`${channel}:${user}`, threadTs);
  }

  recent(channel: string): string | undefined {
    return this.#recentByChannel.get(channel);
  }

  /** The thread of `channel` where `user` last talked to the bot, if any. */
  recentOf(channel: string, user: string): string | undefined {
    return this.#recentByPerson.get(`${channel}:${user}`);
  }

  setRecipient(channel: string, threadTs: string, recipient: Recipient): void {
    this.#recipients.set(`${channel}:${threadTs}`, recipient);
  }

  recipient(channel: string, threadTs: string): Recipient | undefined {
    return this.#recipients.get(`${channel}:${threadTs}`);
  }
}
