/**
 * RecordingAdapter: an in-memory {@link ChatAdapter} (with {@link NativeStreaming})
 * on a {@link VirtualClock}, for tests and benchmarks of anything that talks
 * to chats (the outbox, the bot core).
 *
 * What it does:
 * - records every outbound call in `ops` with its (virtual) arrival time;
 * - keeps the current text of every message and open stream, so a test can
 *   assert what a user sees (`messageText(id)`, `chatMessages(chat)`, `visibleText(chat)`);
 * - enforces the pace it declares, like a platform: a second call on one
 *   message (or stream) closer than `minEditIntervalMs`, a call over the chat's
 *   `budget` or over `globalBudget` (startStream, which only opens a stream
 *   locally, does not count) is refused with `RATE_LIMITED` (with
 *   `retryAfterMs`) and listed in `violations`; text longer than
 *   `maxMessageLength` is refused with `MESSAGE_TOO_LONG`; empty text with
 *   `PLATFORM_ERROR`;
 * - failure injectors: {@link RecordingAdapter.failNext} (any op, any code),
 *   {@link RecordingAdapter.failNextEdits}, {@link RecordingAdapter.rejectFormat},
 *   {@link RecordingAdapter.rateLimitNext}; {@link RecordingAdapter.setCapabilities}
 *   changes what it declares;
 * - inbound: {@link RecordingAdapter.deliver} hands an event to the sink given to `start`;
 * - waiting: every op emits `'op'`; {@link RecordingAdapter.waitForOp} resolves
 *   on the first matching op. With a VirtualClock prefer
 *   `await clock.advanceUntil(() => adapter.ops.some(...))`.
 *
 * Timing model: a call arrives `latencyMs` after it is made; it is checked,
 * applied and recorded at arrival and answered at once. Pace is measured on
 * arrival times.
 *
 * @example
 * const clock = new VirtualClock();
 * const adapter = new RecordingAdapter({ clock, capabilities: { minEditIntervalMs: 1000 } });
 * const outbox = createOutbox({ adapters: [adapter], clock });
 * outbox.send('test:1', 'hello');
 * await clock.advanceUntil(() => adapter.ops.length > 0);
 * expect(adapter.chatMessages('test:1').map((m) => m.text)).toEqual(['hello']);
 */
import { EventEmitter } from 'node:events';
import type {
  Button,
  ChatAdapter,
  ChatCapabilities,
  ChatEvent,
  Dialect,
  EventSink,
  NativeStreaming,
  OutboundMessage,
  RateBudget,
  SentMessage,
  StreamHandle,
} from '../../src/bot/adapter-contract.js';
import { markdown, plain } from '../../src/bot/format/dialect.js';
import { sleep, type VirtualClock } from '../../src/clock.js';
import { type ErrorCode, RateLimitError, SwitchboardError } from '../../src/errors.js';

/** Kinds of recorded calls. */
export type OpKind = 'send' | 'edit' | 'delete' | 'typing' | 'startStream' | 'updateStream' | 'finishStream';

/** One outbound call as the platform saw it. */
export interface RecordedOp {
  seq: number;
  /** Arrival time on the virtual clock. */
  time: number;
  op: OpKind;
  chat: string;
  /** The message edited / sent / deleted; for stream ops the stream id. */
  messageId?: string;
  text?: string;
  format?: Dialect;
  buttons?: Button[][];
  /** False when the call was refused; `error` holds the code. */
  ok: boolean;
  error?: ErrorCode;
}

/** A refused call that broke the declared pace. */
export interface PaceViolation {
  time: number;
  op: OpKind;
  chat: string;
  messageId?: string;
  rule: 'interval' | 'budget' | 'global';
}

/** A message as a user sees it. */
export interface StoredMessage {
  id: string;
  chat: string;
  text: string;
  format: Dialect;
  buttons: Button[][];
  deleted: boolean;
  /** The stream it came from (finishStream), if any. */
  fromStream?: string;
}

/** Options for {@link RecordingAdapter}. */
export interface RecordingAdapterOptions {
  clock: VirtualClock;
  /** Chat key prefix; default `test`. */
  platform?: string;
  /** Fixed capabilities (merged over defaults) or a function per chat. */
  capabilities?: Partial<ChatCapabilities> | ((chat: string) => ChatCapabilities);
  globalBudget?: RateBudget;
  /** One-way latency of every call, default 0. */
  latencyMs?: number;
  /** Implement native streaming (startStream/updateStream/finishStream); default false. */
  nativeStream?: boolean;
  /** Chats have threads (`openThread` opens `<chat>:t<id>` under a sent message); default false. */
  threads?: boolean;
}

interface Injection {
  ops: OpKind[] | '*';
  remaining: number;
  code: ErrorCode;
  retryAfterMs?: number;
  scope?: 'chat' | 'global';
  match?: (op: PendingCall) => boolean;
}

/** What a call looks like to a {@link Injection} matcher. */
export interface PendingCall {
  op: OpKind;
  chat: string;
  messageId?: string;
  message?: OutboundMessage;
}

/** Defaults: Telegram-like private chat. */
export const DEFAULT_CAPABILITIES: ChatCapabilities = {
  maxMessageLength: 4096,
  minEditIntervalMs: 1000,
  dialect: markdown,
  nativeStream: false,
  buttonPayloadLimit: 64,
  typingIntervalMs: 5000,
};

/** An in-memory chat platform that records, paces and fails on demand. See the module comment. */
export class RecordingAdapter extends EventEmitter implements ChatAdapter, NativeStreaming {
  readonly platform: string;
  readonly globalBudget?: RateBudget;
  readonly ops: RecordedOp[] = [];
  readonly violations: PaceViolation[] = [];
  readonly messages = new Map<string, StoredMessage>();
  /** Messages per chat in sending order (a view of `messages`). */
  readonly #byChat = new Map<string, StoredMessage[]>();
  /** Open native streams: id -> current text. */
  readonly streams = new Map<string, { chat: string; text: string; startedAt: number }>();
  readonly clock: VirtualClock;
  latencyMs: number;
  #caps: (chat: string) => ChatCapabilities;
  #seq = 0;
  #nextId = 1;
  #lastByKey = new Map<string, number>();
  #chatCalls = new Map<string, number[]>();
  #allCalls: number[] = [];
  #injections: Injection[] = [];
  #formatRejects: ((text: string) => boolean)[] = [];
  #sink: EventSink | undefined;
  #native: boolean;

  constructor(options: RecordingAdapterOptions) {
    super();
    this.clock = options.clock;
    this.platform = options.platform ?? 'test';
    if (options.globalBudget) this.globalBudget = options.globalBudget;
    this.latencyMs = options.latencyMs ?? 0;
    this.#native = options.nativeStream ?? false;
    this.#caps = this.#toCaps(options.capabilities);
    if (!options.threads) Object.assign(this, { openThread: undefined });
    if (!this.#native) {
      // Without native streaming the methods must not exist (the outbox checks for them).
      Object.assign(this, { startStream: undefined, updateStream: undefined, finishStream: undefined });
    }
  }

  #toCaps(c: RecordingAdapterOptions['capabilities']): (chat: string) => ChatCapabilities {
    if (typeof c === 'function') return c;
    const fixed = { ...DEFAULT_CAPABILITIES, nativeStream: this.#native, ...c };
    return () => fixed;
  }

  capabilities(chat: string): ChatCapabilities {
    return this.#caps(chat);
  }

  /** Changes the declared capabilities from now on. */
  setCapabilities(c: Partial<ChatCapabilities> | ((chat: string) => ChatCapabilities)): void {
    this.#caps = this.#toCaps(c);
  }

  async start(sink: EventSink): Promise<void> {
    this.#sink = sink;
  }

  async stop(): Promise<void> {
    this.#sink = undefined;
  }

  /** Hands an inbound event to the sink given to {@link start}. */
  async deliver(event: ChatEvent): Promise<void> {
    if (!this.#sink) throw new Error('RecordingAdapter.deliver: start() was not called');
    await this.#sink(event);
  }

  /** Sends `text` into `chat` and opens a thread under it: chat key `<chat>:t<message id>`. */
  async openThread(chat: string, text: string): Promise<{ chat: string; url: string; messageId: string }> {
    const sent = await this.send(chat, { text, format: plain });
    const id = sent.messageId;
    return { chat: `${chat}:t${id}`, url: `https://chat.example/${this.platform}/t${id}`, messageId: id };
  }

  describeChat(chat: string): string {
    return `chat ${chat}`;
  }

  // ---- failure injection -------------------------------------------------

  /** The next `count` calls of `ops` (matching `match`) fail with `code`. */
  failNext(
    ops: OpKind | OpKind[] | '*',
    code: ErrorCode,
    options: {
      count?: number;
      retryAfterMs?: number;
      scope?: 'chat' | 'global';
      match?: (call: PendingCall) => boolean;
    } = {},
  ): void {
    this.#injections.push({
      ops: ops === '*' ? '*' : Array.isArray(ops) ? ops : [ops],
      remaining: options.count ?? 1,
      code,
      ...(options.retryAfterMs === undefined ? {} : { retryAfterMs: options.retryAfterMs }),
      ...(options.scope === undefined ? {} : { scope: options.scope }),
      ...(options.match === undefined ? {} : { match: options.match }),
    });
  }

  /** The next `count` edits fail (default PLATFORM_ERROR; Infinity: every edit). */
  failNextEdits(count: number, code: ErrorCode = 'PLATFORM_ERROR'): void {
    this.failNext('edit', code, { count });
  }

  /** Formatted (non-plain) text matching `pattern` is refused with FORMAT_REJECTED. */
  rejectFormat(pattern: RegExp | ((text: string) => boolean)): void {
    this.#formatRejects.push(typeof pattern === 'function' ? pattern : (t) => pattern.test(t));
  }

  /** The next call (of `ops`, default any) answers 429 with `retryAfterMs`. */
  rateLimitNext(retryAfterMs: number, options: { ops?: OpKind | OpKind[]; scope?: 'chat' | 'global' } = {}) {
    this.failNext(options.ops ?? '*', 'RATE_LIMITED', { retryAfterMs, scope: options.scope ?? 'chat' });
  }

  // ---- what users see -----------------------------------------------------

  messageText(id: string): string | undefined {
    return this.messages.get(id)?.text;
  }

  /** Messages of `chat` in the order they were sent (deleted ones left out). */
  chatMessages(chat: string): StoredMessage[] {
    return (this.#byChat.get(chat) ?? []).filter((m) => !m.deleted);
  }

  /** Everything a user of `chat` can read now: messages then open streams, one per line. */
  visibleText(chat: string): string {
    const parts = this.chatMessages(chat).map((m) => m.text);
    for (const s of this.streams.values()) if (s.chat === chat) parts.push(s.text);
    return parts.join('\n');
  }

  /** Resolves with the first future op that matches. */
  waitForOp(predicate: (op: RecordedOp) => boolean = () => true): Promise<RecordedOp> {
    return new Promise((resolve) => {
      const listener = (op: RecordedOp) => {
        if (!predicate(op)) return;
        this.off('op', listener);
        resolve(op);
      };
      this.on('op', listener);
    });
  }

  // ---- ChatAdapter ---------------------------------------------------------

  async send(chat: string, message: OutboundMessage): Promise<SentMessage> {
    return this.#call({ op: 'send', chat, message }, () => {
      const id = String(this.#nextId++);
      this.#store(this.#stored(id, chat, message));
      this.#lastByKey.set(`m:${id}`, this.clock.now());
      return { messageId: id };
    });
  }

  async edit(chat: string, messageId: string, message: OutboundMessage): Promise<void> {
    return this.#call({ op: 'edit', chat, messageId, message }, () => {
      const m = this.messages.get(messageId)!;
      m.text = message.text;
      m.format = message.format;
      if (message.buttons) m.buttons = message.buttons;
    });
  }

  async delete(chat: string, messageId: string): Promise<void> {
    return this.#call({ op: 'delete', chat, messageId }, () => {
      this.messages.get(messageId)!.deleted = true;
    });
  }

  async typing(chat: string): Promise<void> {
    return this.#call({ op: 'typing', chat }, () => undefined);
  }

  async startStream(chat: string, _options: { replyTo?: string }): Promise<StreamHandle> {
    return this.#call({ op: 'startStream', chat }, () => {
      const id = `s${this.#nextId++}`;
      this.streams.set(id, { chat, text: '', startedAt: this.clock.now() });
      return { chat, id };
    });
  }

  async updateStream(handle: StreamHandle, message: OutboundMessage): Promise<void> {
    return this.#call({ op: 'updateStream', chat: handle.chat, messageId: handle.id, message }, () => {
      this.streams.get(handle.id)!.text = message.text;
    });
  }

  async finishStream(handle: StreamHandle, message: OutboundMessage): Promise<SentMessage> {
    return this.#call({ op: 'finishStream', chat: handle.chat, messageId: handle.id, message }, () => {
      this.streams.delete(handle.id);
      const id = String(this.#nextId++);
      this.#store({ ...this.#stored(id, handle.chat, message), fromStream: handle.id });
      return { messageId: id };
    });
  }

  #store(m: StoredMessage): void {
    this.messages.set(m.id, m);
    const list = this.#byChat.get(m.chat);
    if (list) list.push(m);
    else this.#byChat.set(m.chat, [m]);
  }

  #stored(id: string, chat: string, message: OutboundMessage): StoredMessage {
    return {
      id,
      chat,
      text: message.text,
      format: message.format,
      buttons: message.buttons ?? [],
      deleted: false,
    };
  }

  async #call<T>(call: PendingCall, apply: () => T): Promise<T> {
    if (this.latencyMs > 0) await sleep(this.clock, this.latencyMs);
    const now = this.clock.now();
    const error = this.#check(call, now);
    const op: RecordedOp = {
      seq: ++this.#seq,
      time: now,
      op: call.op,
      chat: call.chat,
      ...(call.messageId === undefined ? {} : { messageId: call.messageId }),
      ...(call.message ? { text: call.message.text, format: call.message.format } : {}),
      ...(call.message?.buttons ? { buttons: call.message.buttons } : {}),
      ok: error === undefined,
      ...(error ? { error: error.code } : {}),
    };
    let result: T | undefined;
    if (!error) {
      this.#count(call, now);
      result = apply();
      if (op.op === 'send' || op.op === 'finishStream') op.messageId = (result as SentMessage).messageId;
    }
    this.ops.push(op);
    this.emit('op', op);
    if (error) throw error;
    return result as T;
  }

  #count(call: PendingCall, now: number): void {
    // Opening a stream is local (the platform sees its first update): no budget.
    if (call.op === 'startStream') return;
    this.#chatCalls.get(call.chat)?.push(now);
    this.#allCalls.push(now);
    if (call.messageId !== undefined) {
      this.#lastByKey.set(`${call.op.endsWith('Stream') ? 's' : 'm'}:${call.messageId}`, now);
    }
  }

  #check(call: PendingCall, now: number): SwitchboardError | undefined {
    for (const inj of this.#injections) {
      if (inj.remaining <= 0) continue;
      if (inj.ops !== '*' && !inj.ops.includes(call.op)) continue;
      if (inj.match && !inj.match(call)) continue;
      inj.remaining--;
      if (inj.code === 'RATE_LIMITED') {
        return new RateLimitError(`injected RATE_LIMITED for ${call.op}`, {
          retryAfterMs: inj.retryAfterMs ?? 1000,
          scope: inj.scope ?? 'chat',
          detail: { injected: true },
        });
      }
      return new SwitchboardError(inj.code, `injected ${inj.code} for ${call.op}`, {
        ...(inj.retryAfterMs === undefined ? {} : { retryAfterMs: inj.retryAfterMs }),
        detail: { injected: true },
      });
    }
    const caps = this.capabilities(call.chat);
    const violation = this.#paceViolation(call, now, caps);
    if (violation) {
      this.violations.push({
        time: now,
        op: call.op,
        chat: call.chat,
        ...(call.messageId === undefined ? {} : { messageId: call.messageId }),
        rule: violation.rule,
      });
      return new RateLimitError(`Too Many Requests: retry after ${violation.wait} ms`, {
        retryAfterMs: violation.wait,
        scope: violation.rule === 'global' ? 'global' : 'chat',
      });
    }
    if (call.messageId !== undefined && (call.op === 'edit' || call.op === 'delete')) {
      const m = this.messages.get(call.messageId);
      if (!m || m.deleted || m.chat !== call.chat)
        return new SwitchboardError('NOT_FOUND', 'message not found');
    }
    if (call.op.endsWith('Stream') && call.op !== 'startStream' && !this.streams.has(call.messageId ?? '')) {
      return new SwitchboardError('NOT_FOUND', 'stream not found');
    }
    const message = call.message;
    if (message) {
      if (message.text.trim() === '' && call.op !== 'updateStream') {
        return new SwitchboardError('PLATFORM_ERROR', 'Bad Request: message text is empty');
      }
      if (message.text.length > caps.maxMessageLength) {
        return new SwitchboardError(
          'MESSAGE_TOO_LONG',
          `Bad Request: message is too long (${message.text.length})`,
        );
      }
      if (message.format !== plain && this.#formatRejects.some((f) => f(message.text))) {
        return new SwitchboardError('FORMAT_REJECTED', "Bad Request: can't parse entities");
      }
    }
    return undefined;
  }

  #paceViolation(call: PendingCall, now: number, caps: ChatCapabilities) {
    if (call.messageId !== undefined && call.op !== 'delete') {
      const key = `${call.op.endsWith('Stream') ? 's' : 'm'}:${call.messageId}`;
      const last = this.#lastByKey.get(key);
      if (last !== undefined && now - last < caps.minEditIntervalMs) {
        return { rule: 'interval' as const, wait: last + caps.minEditIntervalMs - now };
      }
    }
    // Calls of every window are kept until the longest has passed: a short window must not forget
    // what a longer one still counts.
    const longest = Math.max(
      0,
      ...[caps.budget, ...(caps.otherBudgets ?? []), this.globalBudget].map((b) => b?.windowMs ?? 0),
    );
    const over = (times: number[], b: RateBudget | undefined) => {
      let drop = 0;
      while (drop < times.length && times[drop]! <= now - longest) drop++;
      if (drop > 0) times.splice(0, drop);
      if (!b) {
        if (times.length > 1000) times.splice(0, times.length - 100);
        return undefined;
      }
      const inWindow = times.filter((t) => t > now - b.windowMs);
      if (inWindow.length < b.count) return undefined;
      return inWindow[inWindow.length - b.count]! + b.windowMs - now;
    };
    let chatCalls = this.#chatCalls.get(call.chat);
    if (!chatCalls) {
      chatCalls = [];
      this.#chatCalls.set(call.chat, chatCalls);
    }
    if (call.op === 'startStream') return undefined;
    for (const budget of [caps.budget, ...(caps.otherBudgets ?? [])]) {
      const chatWait = over(chatCalls, budget);
      if (chatWait !== undefined) return { rule: 'budget' as const, wait: chatWait };
    }
    const globalWait = over(this.#allCalls, this.globalBudget);
    if (globalWait !== undefined) return { rule: 'global' as const, wait: globalWait };
    return undefined;
  }
}
