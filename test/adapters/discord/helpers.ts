/**
 * Shared set-up for the Discord adapter tests: a fake Discord, the adapter
 * under test started against it, and the events it hands the core.
 */
import {
  createDiscordAdapter,
  type DiscordAdapter,
  type DiscordAdapterOptions,
} from '../../../adapters/discord/index.js';
import type { ChatEvent } from '../../../src/bot/adapter-contract.js';
import { type FakeDiscord, type FakeDiscordOptions, startFakeDiscord } from '../../fakes/discord/index.js';

/** Events the adapter delivered, with a way to wait for one. */
export class EventLog {
  readonly events: ChatEvent[] = [];
  #waiters = new Set<() => void>();
  /** What the sink does with each event after recording it (tests answer buttons from here). */
  onEvent: (event: ChatEvent) => void | Promise<void> = () => {};

  readonly sink = async (event: ChatEvent): Promise<void> => {
    this.events.push(event);
    for (const w of [...this.#waiters]) w();
    await this.onEvent(event);
  };

  /** Resolves with the first event (already seen or future) matching `predicate`. */
  next<T extends ChatEvent>(predicate: (e: ChatEvent) => e is T, timeoutMs?: number): Promise<T>;
  next(predicate: (e: ChatEvent) => boolean, timeoutMs?: number): Promise<ChatEvent>;
  next(predicate: (e: ChatEvent) => boolean, timeoutMs = 10_000): Promise<ChatEvent> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.events.find(predicate);
        if (found) {
          this.#waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        }
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(new Error(`no matching event among ${JSON.stringify(this.events.map((e) => e.type))}`));
      }, timeoutMs);
      this.#waiters.add(check);
      check();
    });
  }
}

/** A fake Discord and a started adapter. */
export interface Rig {
  fake: FakeDiscord;
  adapter: DiscordAdapter;
  log: EventLog;
  close(): Promise<void>;
}

/** Starts a fake and the adapter against it. */
export async function startRig(
  fakeOptions: FakeDiscordOptions = {},
  adapterOptions: Partial<DiscordAdapterOptions> = {},
): Promise<Rig> {
  const fake = await startFakeDiscord(fakeOptions);
  const log = new EventLog();
  const adapter = createDiscordAdapter({
    token: fake.token,
    apiUrl: fake.apiUrl,
    guildId: fake.guildId,
    restRetries: 0,
    ...adapterOptions,
  });
  try {
    await adapter.start(log.sink);
  } catch (err) {
    await fake.close();
    throw err;
  }
  return {
    fake,
    adapter,
    log,
    async close() {
      await adapter.stop();
      await fake.close();
    },
  };
}

/** `<@id>` for the fake's bot. */
export function mention(fake: FakeDiscord): string {
  return `<@${fake.botUser.id}>`;
}
