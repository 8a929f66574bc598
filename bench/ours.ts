/**
 * The strategy under test: the real outbox ReplyStream, driven the way the
 * bot core drives it (status line for tools, checkpoint before an approval
 * prompt, the prompt edited to its outcome, finish at the end).
 */
import { createOutbox } from '../src/bot/stream/index.js';
import type { Outbox, ReplyStream } from '../src/bot/stream/types.js';
import { sleep, type VirtualClock } from '../src/clock.js';
import type { RecordingAdapter } from '../test/fakes/recording-adapter.js';
import { type Strategy, TOOL_DONE, TOOL_START } from './timeline.js';

const STOP = [[{ label: 'Stop', payload: 'stop:t1' }]];
const APPROVE = [
  [
    { label: 'Allow', payload: 'ap:a1:allow' },
    { label: 'Allow for this session', payload: 'ap:a1:allow-session' },
    { label: 'Deny', payload: 'ap:a1:deny', style: 'danger' as const },
  ],
];

/** The outbox streaming into `chat` of `platform`. */
export class OutboxStrategy implements Strategy {
  readonly excluded = new Set<string>();
  readonly statusLines: string[] = [];
  readonly outbox: Outbox;
  readonly #reply: ReplyStream;
  readonly #clock: VirtualClock;
  readonly #chat: string;
  readonly #pending: Promise<unknown>[] = [];
  #statusShown = false;

  constructor(platform: RecordingAdapter, chat: string) {
    this.#clock = platform.clock;
    this.#chat = chat;
    this.outbox = createOutbox({ adapters: [platform], clock: platform.clock });
    this.#reply = this.outbox.stream(chat, { liveButtons: STOP });
  }

  text(delta: string): void {
    if (this.#statusShown) {
      this.#reply.setStatus(undefined);
      this.#statusShown = false;
    }
    this.#reply.append(delta);
  }

  toolStart(summary: string): void {
    this.#status(TOOL_START(summary));
  }

  toolEnd(summary: string): void {
    this.#status(TOOL_DONE(summary));
  }

  approval(prompt: string, outcome: string, waitMs: number): void {
    const askedAt = this.#clock.now();
    const flow = async () => {
      await this.#reply.checkpoint();
      const ids = await this.outbox.send(this.#chat, prompt, { buttons: APPROVE });
      for (const id of ids) this.excluded.add(id);
      await sleep(this.#clock, Math.max(0, askedAt + waitMs - this.#clock.now()));
      const last = ids[ids.length - 1];
      if (last !== undefined) await this.outbox.edit(this.#chat, last, outcome, { buttons: [] });
    };
    this.#pending.push(flow());
  }

  async finish(): Promise<void> {
    await Promise.all(this.#pending);
    if (this.#statusShown) this.#reply.setStatus(undefined);
    await this.#reply.finish();
    await this.outbox.idle();
  }

  #status(line: string): void {
    this.statusLines.push(line);
    this.#reply.setStatus(line);
    this.#statusShown = true;
  }
}
