/**
 * Two naive ways to stream a reply, for comparison with the outbox, written
 * the way many chat bots do it:
 *
 * - `every-delta`: edit the message with the whole text on every delta,
 *   without waiting for the previous edit; a 429 drops that edit.
 * - `fixed-timer`: edit with the newest text every declared interval,
 *   whether or not an edit is still in flight; a 429 is retried after its
 *   `retry_after` with the text it carried.
 *
 * Both split long text with the project's splitter (so they are not also
 * penalised for cutting code fences), keep a part once it is full, send each
 * new part as a new message, send Markdown chats the model's text as it is,
 * show no status line, and deliver the final text with up to ten attempts
 * per message, each after the `retry_after` they were given.
 */

import type { ChatCapabilities } from '../src/bot/adapter-contract.js';
import { markdown } from '../src/bot/format/dialect.js';
import { type FenceState, nextSplit, renderMarkdown } from '../src/bot/format/index.js';
import { sleep, type TimerHandle, type VirtualClock } from '../src/clock.js';
import { isErrorCode, SwitchboardError } from '../src/errors.js';
import type { RecordingAdapter } from '../test/fakes/recording-adapter.js';
import type { Strategy } from './timeline.js';

/** The two baselines. */
export type BaselineKind = 'every-delta' | 'fixed-timer';

const FINAL_ATTEMPTS = 10;

/** A naive streaming strategy straight on the platform adapter. */
export class BaselineStrategy implements Strategy {
  readonly excluded = new Set<string>();
  readonly statusLines: string[] = [];
  readonly #kind: BaselineKind;
  readonly #platform: RecordingAdapter;
  readonly #clock: VirtualClock;
  readonly #chat: string;
  readonly #caps: ChatCapabilities;
  #text = '';
  /** Parts that filled up, and where the growing part starts. */
  readonly #frozen: string[] = [];
  #start = 0;
  #fence: FenceState | undefined;
  readonly #rendered: { src: string; final: boolean; out: string }[] = [];
  /** Per part: message id once sent, a send in flight, the text last sent. */
  readonly #ids: (string | undefined)[] = [];
  readonly #sending: (Promise<void> | undefined)[] = [];
  readonly #lastSent: string[] = [];
  /** Per part: the text the platform last accepted. */
  readonly #accepted: string[] = [];
  readonly #pending = new Set<Promise<unknown>>();
  #timer: TimerHandle | undefined;

  constructor(kind: BaselineKind, platform: RecordingAdapter, chat: string) {
    this.#kind = kind;
    this.#platform = platform;
    this.#clock = platform.clock;
    this.#chat = chat;
    this.#caps = platform.capabilities(chat);
  }

  text(delta: string): void {
    this.#text += delta;
    if (this.#kind === 'every-delta') this.#push(false);
    else if (this.#timer === undefined) {
      this.#push(false);
      this.#tick();
    }
  }

  toolStart(): void {}

  toolEnd(): void {}

  approval(prompt: string, outcome: string, waitMs: number): void {
    const askedAt = this.#clock.now();
    const flow = async () => {
      const format = this.#caps.dialect;
      const { messageId } = await this.#retrying(() =>
        this.#platform.send(this.#chat, {
          text: renderMarkdown(prompt, format),
          format,
          buttons: [[{ label: 'Allow', payload: 'a' }]],
        }),
      );
      this.excluded.add(messageId);
      await sleep(this.#clock, Math.max(0, askedAt + waitMs - this.#clock.now()));
      await this.#retrying(() =>
        this.#platform.edit(this.#chat, messageId, { text: outcome, format, buttons: [] }),
      );
    };
    this.#track(flow().catch(() => undefined));
  }

  async finish(): Promise<void> {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    await Promise.all(this.#sending);
    const parts = this.#render(true);
    for (let i = 0; i < parts.length; i++) {
      const text = parts[i]!;
      const id = this.#ids[i];
      const format = this.#caps.dialect;
      try {
        if (id === undefined) {
          const sent = await this.#retrying(() => this.#platform.send(this.#chat, { text, format }));
          this.#ids[i] = sent.messageId;
        } else if (text !== this.#accepted[i]) {
          await this.#retrying(() => this.#platform.edit(this.#chat, id, { text, format }));
        }
        this.#lastSent[i] = text;
        this.#accepted[i] = text;
      } catch {
        // Given up after its attempts: the chat keeps what it had (fidelity shows it).
      }
    }
    await Promise.all([...this.#pending]);
  }

  #tick(): void {
    this.#timer = this.#clock.setTimeout(() => {
      this.#push(false);
      this.#tick();
    }, this.#caps.minEditIntervalMs);
  }

  /**
   * The text cut into messages: parts that filled up stay as they were cut;
   * only the last one grows. Each part is rendered when its text changed;
   * Markdown chats get the model's text as it is.
   */
  #render(final: boolean): string[] {
    const limit = Math.floor(this.#caps.maxMessageLength * 0.9);
    let tail: string;
    for (;;) {
      const p = nextSplit(this.#text, this.#start, this.#fence, limit);
      if (p.end >= this.#text.length) {
        tail = p.text;
        break;
      }
      this.#frozen.push(p.text);
      this.#start = p.end;
      this.#fence = p.fenceAtEnd;
    }
    return [...this.#frozen, tail].map((src, i) => {
      const cached = this.#rendered[i];
      if (cached && cached.src === src && cached.final === final) return cached.out;
      const out =
        this.#caps.dialect === markdown ? src : renderMarkdown(src, this.#caps.dialect, { partial: !final });
      this.#rendered[i] = { src, final, out };
      return out;
    });
  }

  /** Sends new parts and edits changed ones, without waiting for anything in flight. */
  #push(final: boolean): void {
    const parts = this.#render(final);
    parts.forEach((text, i) => {
      if (text.trim() === '' || text === this.#lastSent[i]) return;
      const id = this.#ids[i];
      if (id === undefined) {
        if (this.#sending[i]) return;
        this.#lastSent[i] = text;
        this.#sending[i] = this.#platform.send(this.#chat, { text, format: this.#caps.dialect }).then(
          (sent) => {
            this.#ids[i] = sent.messageId;
            this.#accepted[i] = text;
          },
          () => {
            this.#lastSent[i] = '';
            this.#sending[i] = undefined;
          },
        );
        return;
      }
      this.#lastSent[i] = text;
      const edit = () =>
        this.#platform.edit(this.#chat, id, { text, format: this.#caps.dialect }).then(() => {
          this.#accepted[i] = text;
        });
      // Dropped or given up: forget it was sent, so the final delivery still sends it.
      const forget = () => {
        if (this.#lastSent[i] === text) this.#lastSent[i] = '';
      };
      this.#track(this.#kind === 'every-delta' ? edit().catch(forget) : this.#retrying(edit).catch(forget));
    });
  }

  /** Retries a call after the `retry_after` of each 429, a few times. */
  async #retrying<T>(call: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (err) {
        if (!isErrorCode(err, 'RATE_LIMITED') || attempt >= FINAL_ATTEMPTS) throw err;
        const wait = err instanceof SwitchboardError ? (err.retryAfterMs ?? 1000) : 1000;
        await sleep(this.#clock, wait);
      }
    }
  }

  #track(p: Promise<unknown>): void {
    this.#pending.add(p);
    p.finally(() => this.#pending.delete(p)).catch(() => undefined);
  }
}
