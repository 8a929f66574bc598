/**
 * What a platform provides so the adapter contract suite (suite.ts) can run
 * against it: the real adapter started over its loopback fake, a way to act
 * like a person (write, press a button), a way to look at what the fake
 * holds, and the fake's faults (429, a refused format). A new platform adds
 * one file, `test/contract/<platform>.test.ts`, that implements
 * {@link PlatformHarness} and calls `contractSuite(harness)`:
 *
 * 1. `limits`: the platform's documented numbers (message length, button
 *    payload, upload, acknowledgement deadline, edit pace, chat budget),
 *    each with its docs page, as the fake enforces them.
 * 2. `places`: where a person can talk to the bot (a personal chat, a
 *    channel thread); each becomes a chat-key round trip.
 * 3. `start()`: the fake on port 0, then the adapter built in one function
 *    (so a change of option names is made in one place) with the given
 *    clock and `log.sink`; a {@link PlatformRig} over both.
 * 4. `cannot`: each part the platform cannot do, with why. The test is then
 *    skipped with that reason in its name; never make a part pass vacuously.
 *
 * telegram.test.ts, slack.test.ts and discord.test.ts are examples;
 * console.test.ts shows a platform that can do only some parts.
 *
 * Everything here is read through the fake, never through the adapter: the
 * suite asserts what a person on the platform would see.
 */
import type { ChatAdapter, ChatEvent, Dialect, OutboundMessage } from '../../src/bot/adapter-contract.js';
import type { VirtualClock } from '../../src/clock.js';
import type { RateLimitScope } from '../../src/errors.js';

/** The parts of the contract; a platform names the ones it cannot do in {@link PlatformHarness.cannot}. */
export type ContractPart =
  | 'send'
  | 'edit'
  | 'delete'
  | 'too-long'
  | 'rate-limit-chat'
  | 'rate-limit-global'
  | 'format-refused'
  | 'buttons'
  | 'buttons-over-limit'
  | 'buttons-on-edit'
  | 'files'
  | 'chat-key'
  | 'edit-inbound'
  | 'command'
  | 'command-ack'
  | 'ack-deadline'
  | 'ack-answer'
  | 'typing'
  | 'capabilities';

/** A documented number, with the page that documents it. */
export interface Documented {
  value: number;
  /** The platform documentation page the number comes from. */
  docs: string;
}

/**
 * The platform's documented limits as its fake enforces them. The suite
 * checks the adapter's capabilities against these and drives the adapter
 * just under and just over each one.
 */
export interface PlatformLimits {
  /**
   * The shortest text the platform refuses as too long when sent in
   * `format`, minus one: `value + 1` characters must fail with
   * MESSAGE_TOO_LONG. The chat's declared `maxMessageLength` must not be
   * above it.
   */
  messageLength: Documented & { format: Dialect };
  /** Largest button payload in bytes the platform takes. */
  buttonPayloadBytes: Documented;
  /**
   * The upload limit: `documented` is the platform's own number (what
   * `maxUploadBytes` must not exceed); `enforced` is what this fake is set
   * to refuse above, smaller when the documented one would take too long to
   * push through loopback in a unit test (`why` says so).
   */
  upload: { documented: Documented; enforced: number; why?: string };
  /** How long the platform waits for a button press to be acknowledged. */
  ackDeadlineMs: Documented;
  /** The fake's per-message edit spacing, where it has one: the declared `minEditIntervalMs` must be at least this. */
  editIntervalMs?: Documented;
  /** The fake's per-chat budget, where the platform has one the adapter must declare. */
  chatBudget?: Documented & { windowMs: number };
}

/**
 * Resolves with `found()`'s first defined value, asked now and each time a
 * listener in `listeners` is called; rejects after `timeoutMs` saying `what`.
 */
export function waitFor<T>(
  listeners: Set<() => void>,
  found: () => T | undefined,
  what: string,
  timeoutMs = 5000,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const value = found();
      if (value === undefined) return;
      listeners.delete(check);
      clearTimeout(timer);
      resolve(value);
    };
    const timer = setTimeout(() => {
      listeners.delete(check);
      reject(new Error(`waited ${timeoutMs} ms for ${what}`));
    }, timeoutMs);
    listeners.add(check);
    check();
  });
}

/** Events the adapter delivered, with a way to wait for one without sleeping. */
export class EventLog {
  readonly events: ChatEvent[] = [];
  readonly #waiters = new Set<() => void>();

  /** The sink given to the adapter: records and wakes waiters, never answers anything. */
  readonly sink = async (event: ChatEvent): Promise<void> => {
    this.events.push(event);
    for (const w of [...this.#waiters]) w();
  };

  /** Resolves with the first event, seen or to come, matching `predicate`. */
  next<T extends ChatEvent>(predicate: (e: ChatEvent) => e is T): Promise<T>;
  next(predicate: (e: ChatEvent) => boolean): Promise<ChatEvent>;
  next(predicate: (e: ChatEvent) => boolean): Promise<ChatEvent> {
    return waitFor(
      this.#waiters,
      () => this.events.find(predicate),
      `a matching event; got ${JSON.stringify(this.events.map((e) => e.type))}`,
    );
  }
}

/** What {@link PlatformHarness.start} is given. */
export interface RigOptions {
  /** Receives every event; the adapter must be started with `log.sink`. */
  log: EventLog;
  /** The adapter's clock: acknowledgement timers and call deadlines run on it. */
  clock: VirtualClock;
}

/** How a person's button press (or command) went, as the platform saw it. */
export interface PressView {
  /**
   * Resolves once the fake recorded the press as acknowledged, rejects when
   * it was acknowledged too late (or never, within a few seconds).
   */
  acknowledged(): Promise<void>;
  /** What the person who pressed (or ran the command) was shown in answer (a toast, an ephemeral message), newest last. */
  shown(): string[];
}

/** Where the bot sends when the chat key names a place, as the fake holds it. */
export interface Spot {
  /** The bot's messages there as a person sees them now (current text, deleted ones left out), oldest first. */
  botTexts(): string[];
}

/** The adapter running against its fake. */
export interface PlatformRig {
  readonly adapter: ChatAdapter;
  /** A chat the bot may write in (a private chat, a thread): where the outbound parts run. */
  readonly chat: string;
  /** What a person sees of the bot's messages in {@link chat}, oldest first. */
  botTexts(): string[];
  /**
   * A person writes `text` in `place` (one of {@link PlatformHarness.places}),
   * addressed to the bot as that place needs (a mention in a channel).
   * Returns where a reply to it belongs.
   */
  say(place: string, text: string): Promise<Spot>;
  /** The labels of the buttons a person sees under the bot's message `messageId` in {@link chat}, in order. */
  buttonLabels(messageId: string): string[];
  /** The person edits the message they last wrote with {@link say} so it reads `text` (addressed to the bot as before). */
  editLastSaid(text: string): Promise<void>;
  /**
   * A person runs the bot's command `name` with `args` in {@link chat}, the
   * platform's way (`/compact keep the names`, a slash command with its
   * option). The suite runs `compact` with its focus argument.
   */
  command(name: string, args: string): Promise<PressView>;
  /** A person presses the button carrying `payload` on the bot's message `messageId` in {@link chat}. */
  press(messageId: string, payload: string): Promise<PressView>;
  /**
   * Makes the fake answer the next call of the operation it returns with a
   * 429 of this scope and wait; undefined when the platform never says so.
   */
  rateLimitNext(scope: RateLimitScope, retryAfterMs: number): 'send' | 'edit' | undefined;
  /**
   * A message the platform refuses for its markup in {@link chat} (the fake
   * parses it and says so, as the platform does). Absent where no markup is
   * ever refused; {@link PlatformHarness.cannot} then says why.
   */
  refusedFormat?(): OutboundMessage;
  /** Files the bot uploaded into {@link chat}: name and size. */
  files(): { name: string; size: number }[];
  /** Typing indicators the fake saw in {@link chat}. */
  typings(): number;
  /** Resolves when `check` holds, re-checked on every change of the fake; rejects after a few seconds saying `what`. */
  until(check: () => boolean, what: string): Promise<void>;
  /** Stops the adapter and closes the fake. */
  close(): Promise<void>;
}

/** One platform, as the contract suite sees it. */
export interface PlatformHarness {
  /** The platform (and variant) in test names: `telegram (classic HTML)`. */
  readonly name: string;
  readonly limits: PlatformLimits;
  /** The places a person can talk to the bot ("private chat", "forum topic"...), each a chat-key round trip. */
  readonly places: readonly string[];
  /** The parts this platform cannot do, each with why; the suite skips them with the reason in the test name. */
  readonly cannot?: Partial<Record<ContractPart, string>>;
  /** Starts the fake and the adapter (with `log.sink` and `clock`), ready for the suite. */
  start(options: RigOptions): Promise<PlatformRig>;
}
