/**
 * Test helpers: the real adapter (real Bolt, real WebClient) started against
 * the fake Slack, with a sink that records events and lets tests wait for
 * them instead of sleeping.
 */
import {
  createSlackAdapter,
  type SlackAdapter,
  type SlackAdapterOptions,
} from '../../../adapters/slack/index.js';
import type { ChatEvent } from '../../../src/bot/adapter-contract.js';
import type { FakeSlack } from '../../fakes/slack/index.js';

/** Records events and resolves waiters as they arrive. */
export class EventLog {
  readonly events: ChatEvent[] = [];
  #waiters: Array<() => void> = [];

  readonly sink = async (event: ChatEvent): Promise<void> => {
    this.events.push(event);
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  };

  /** Resolves with the first event (from `from` on) matching `predicate`. */
  async next<T extends ChatEvent = ChatEvent>(
    predicate: (e: ChatEvent) => boolean = () => true,
    from = 0,
    timeoutMs = 5000,
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.slice(from).find(predicate);
      if (found) return found as T;
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`no matching event within ${timeoutMs} ms; got ${JSON.stringify(this.events)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}

/** Starts the adapter in Socket Mode (default) or HTTP mode against `fake`. */
export async function startAdapter(
  fake: FakeSlack,
  options: Partial<SlackAdapterOptions> = {},
): Promise<{ adapter: SlackAdapter; log: EventLog }> {
  const adapter = createSlackAdapter({
    token: fake.botToken,
    ...(options.signingSecret ? {} : { appToken: fake.appToken }),
    apiUrl: fake.apiUrl,
    retries: 0,
    port: 0,
    host: '127.0.0.1',
    ...options,
  });
  const log = new EventLog();
  await adapter.start(log.sink);
  if (!options.signingSecret) await fake.socket.waitForConnection();
  return { adapter, log };
}

/** Stops the adapter and waits until its socket is really closed. */
export async function stopAdapter(fake: FakeSlack, adapter: SlackAdapter | undefined): Promise<void> {
  await adapter?.stop();
  await fake.socket.waitForDisconnect();
}
