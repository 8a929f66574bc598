/** Shared pieces for the Telegram tests: a capturing sink, a capturing logger, a free port. */

import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { pino } from 'pino';
import type { ChatEvent } from '../../../src/bot/adapter-contract.js';
import type { Logger } from '../../../src/logger.js';
import type { FakeTelegram } from '../../fakes/telegram/index.js';

/** Collects events and lets a test wait for one. */
export class EventLog {
  readonly events: ChatEvent[] = [];
  #waiters: (() => void)[] = [];
  /** When set, the sink rejects with it (a failing core). */
  failWith: Error | undefined;

  readonly sink = async (event: ChatEvent): Promise<void> => {
    this.events.push(event);
    for (const w of [...this.#waiters]) w();
    if (this.failWith) throw this.failWith;
  };

  waitFor<T extends ChatEvent>(predicate: (e: ChatEvent) => e is T, timeoutMs?: number): Promise<T>;
  waitFor(predicate: (e: ChatEvent) => boolean, timeoutMs?: number): Promise<ChatEvent>;
  waitFor(predicate: (e: ChatEvent) => boolean, timeoutMs = 5000): Promise<ChatEvent> {
    const found = this.events.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const check = () => {
        const hit = this.events.find(predicate);
        if (!hit) return;
        this.#waiters = this.#waiters.filter((w) => w !== check);
        clearTimeout(timer);
        resolve(hit);
      };
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== check);
        reject(
          new Error(
            `no matching event within ${timeoutMs} ms; got ${JSON.stringify(this.events.map((e) => e.type))}`,
          ),
        );
      }, timeoutMs);
      this.#waiters.push(check);
    });
  }
}

/** A pino logger whose lines land in `lines`. */
export function captureLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = pino({ level: 'debug', base: null }, { write: (line: string) => void lines.push(line) });
  return { logger, lines };
}

/** A port that was free a moment ago (webhook tests must know it before start). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The bot's texts in one chat of the fake, and a wait that says what the chat held when it times out. */
export function chatView(telegram: FakeTelegram, chatId: number) {
  const texts = () => telegram.botMessages(chatId).map((m) => m.text);
  const until = (condition: () => boolean, what: string) =>
    telegram.waitFor(condition, 15_000).catch(() => {
      throw new Error(`waited for ${what}; the chat holds ${JSON.stringify(texts())}`);
    });
  return { texts, until };
}
