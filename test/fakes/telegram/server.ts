/**
 * A loopback fake of the Telegram Bot API for the real grammy client:
 * `POST /bot<token>/<method>` with JSON bodies, long-polled getUpdates,
 * webhook delivery with the secret-token header, file downloads, flood
 * limits answering 429 with retry_after, and fault injection.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Update, User } from 'grammy/types';
import { type FakeRateLimit, FaultInjector, type FaultRule, FloodControl } from './limits.js';
import { type FakeContentLimits, METHODS, type MethodContext, RICH_METHODS } from './methods.js';
import { LongPoll, updateType } from './polling.js';
import { ApiError, type FakeDraft, type FakeMessage, FakeState } from './state.js';

/** Options for {@link startFakeTelegram}. */
export interface FakeTelegramOptions {
  token?: string;
  bot?: Partial<User>;
  /** Serve rich-message methods (default true); false answers 404 like an older server. */
  rich?: boolean;
  /** Serve draft methods (default true). */
  drafts?: boolean;
  /**
   * Flood limits; defaults: private chats 3 calls per 1 s (short bursts pass),
   * one message edited (or one draft updated) once per 1 s, groups 20 per
   * 60 s, the whole bot 30 per 1 s.
   */
  limits?: {
    private?: FakeRateLimit;
    perMessage?: FakeRateLimit;
    group?: FakeRateLimit;
    global?: FakeRateLimit;
    retryAfter?: number;
  };
  content?: Partial<FakeContentLimits>;
  seed?: number;
}

/** The running fake; see {@link startFakeTelegram}. */
export interface FakeTelegram {
  /** The `apiRoot` for grammy (no trailing slash). */
  readonly url: string;
  readonly token: string;
  readonly bot: User;
  readonly state: FakeState;
  /** Number of 429 answers sent so far. */
  readonly rateLimited: number;
  rich: boolean;
  drafts: boolean;
  /** Queues an update (update_id assigned) or posts it to the webhook; returns the id. */
  pushUpdate(update: Omit<Update, 'update_id'>): number;
  /** Posts an update to the registered webhook with a chosen secret; returns the HTTP status. */
  deliverWebhook(update: Omit<Update, 'update_id'>, secret?: string): Promise<number>;
  /**
   * Adds a file that getFile and `/file/bot<token>/<path>` serve; returns its
   * file_id. `withoutSize` leaves `file_size` out of getFile's answer, which
   * the Bot API allows ("Optional. File size in bytes",
   * https://core.telegram.org/bots/api#file). `stall` sends the first bytes
   * of the download and then nothing.
   */
  addFile(data: Buffer, path?: string, options?: { withoutSize?: boolean; stall?: boolean }): string;
  /** Adds a fault rule (429, 5xx, slow, dropped connection, any error). */
  fault(rule: FaultRule): void;
  clearFaults(): void;
  /** Bot messages (current form) in a chat or topic. */
  botMessages(chatId: number, threadId?: number): FakeMessage[];
  draftsIn(chatId: number): FakeDraft[];
  callsTo(method: string): Record<string, unknown>[];
  /** Resolves when `predicate` holds, checked after every call and update. */
  waitFor(predicate: () => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  if (!raw) return {};
  const type = req.headers['content-type'] ?? '';
  if (type.includes('application/json')) return JSON.parse(raw) as Record<string, unknown>;
  if (type.includes('x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(raw));
  throw new ApiError(400, 'Bad Request: unsupported content type in this fake');
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed) return;
  const data = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) });
  res.end(data);
}

/** Starts the fake on 127.0.0.1, port 0. */
export async function startFakeTelegram(options: FakeTelegramOptions = {}): Promise<FakeTelegram> {
  const token = options.token ?? '123456:TEST-token-abcdef';
  const bot: User = {
    id: 777000111,
    is_bot: true,
    first_name: 'Switchboard',
    username: 'switchboard_bot',
    ...options.bot,
  };
  const state = new FakeState();
  const faults = new FaultInjector(options.seed ?? 1);
  const retryAfter = options.limits?.retryAfter ?? 1;
  const flood = new FloodControl({
    private: options.limits?.private ?? { count: 3, windowMs: 1000 },
    perMessage: options.limits?.perMessage ?? { count: 1, windowMs: 1000 },
    group: options.limits?.group ?? { count: 20, windowMs: 60_000 },
    global: options.limits?.global ?? { count: 30, windowMs: 1000 },
  });
  const content: FakeContentLimits = {
    maxLength: 4096,
    richMaxLength: 32768,
    callbackDataBytes: 64,
    callbackDeadlineMs: 15_000,
    ...options.content,
  };
  let rateLimited = 0;
  const waiters = new Set<() => void>();
  const poll = new LongPoll(state, reply);
  const notify = () => {
    for (const w of [...waiters]) w();
  };

  const handleMethod = async (req: IncomingMessage, res: ServerResponse, method: string) => {
    const started = Date.now();
    let params: Record<string, unknown> = {};
    const record = (outcome: 'ok' | number, description?: string) => {
      state.calls.push({ method, params, at: started, outcome, ...(description ? { description } : {}) });
      notify();
    };
    try {
      params = await readBody(req);
      const fault = faults.pick(method);
      if (fault?.kind === 'drop') {
        record(0, 'dropped');
        req.socket.destroy();
        return;
      }
      if (fault?.kind === 'hang') {
        record(0, 'hung');
        return;
      }
      if (fault?.kind === 'slow') await new Promise((r) => setTimeout(r, fault.delayMs));
      if (fault?.kind === 'rate-limit') {
        rateLimited++;
        const after = fault.retryAfter ?? retryAfter;
        throw new ApiError(429, `Too Many Requests: retry after ${after}`, { retry_after: after });
      }
      if (fault?.kind === 'server-error') throw new ApiError(fault.status ?? 502, 'Bad Gateway');
      if (fault?.kind === 'error') throw new ApiError(fault.code, fault.description);
      if (method === 'getUpdates') {
        poll.getUpdates(res, params);
        record('ok');
        return;
      }
      const handler = METHODS[method];
      if (!handler || (RICH_METHODS.has(method) && !fake.rich) || (/Draft$/.test(method) && !fake.drafts)) {
        throw new ApiError(404, 'Not Found');
      }
      if (!flood.allow(method, params, Date.now())) {
        rateLimited++;
        throw new ApiError(429, `Too Many Requests: retry after ${retryAfter}`, { retry_after: retryAfter });
      }
      const ctx: MethodContext = {
        state,
        bot,
        limits: content,
        rich: fake.rich,
        drafts: fake.drafts,
        now: Date.now(),
      };
      const result = handler(params, ctx);
      record('ok');
      reply(res, 200, { ok: true, result });
    } catch (err) {
      const e = err instanceof ApiError ? err : new ApiError(500, `Internal Server Error: ${String(err)}`);
      record(e.code, e.description);
      reply(res, e.code, {
        ok: false,
        error_code: e.code,
        description: e.description,
        ...(e.parameters ? { parameters: e.parameters } : {}),
      });
    }
  };

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const file = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
    if (file) {
      const entry =
        file[1] === token
          ? [...state.files.values()].find((f) => f.path === decodeURIComponent(file[2] ?? ''))
          : undefined;
      if (!entry) {
        reply(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
        return;
      }
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': entry.data.length });
      // A stalled download: the first bytes, then nothing until the connection is closed.
      if (entry.stall) res.write(entry.data.subarray(0, Math.min(1024, entry.data.length - 1)));
      else res.end(entry.data);
      return;
    }
    const call = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
    if (!call) {
      reply(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
      return;
    }
    if (call[1] !== token) {
      req.resume();
      state.calls.push({
        method: call[2] ?? '',
        params: {},
        at: Date.now(),
        outcome: 401,
        description: 'Unauthorized',
      });
      reply(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
      return;
    }
    void handleMethod(req, res, call[2] ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const postWebhook = async (update: Update, secret: string | undefined): Promise<number> => {
    const hook = state.webhook;
    if (!hook) throw new Error('no webhook is set');
    const response = await fetch(hook.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(secret === undefined ? {} : { 'x-telegram-bot-api-secret-token': secret }),
      },
      body: JSON.stringify(update),
    });
    await response.arrayBuffer();
    return response.status;
  };

  const fake: FakeTelegram = {
    url: `http://127.0.0.1:${port}`,
    token,
    bot,
    state,
    get rateLimited() {
      return rateLimited;
    },
    rich: options.rich ?? true,
    drafts: options.drafts ?? true,
    pushUpdate(partial) {
      const update = { update_id: state.nextUpdateId(), ...partial } as Update;
      const now = Date.now();
      if (update.callback_query)
        state.callbacks.set(update.callback_query.id, { id: update.callback_query.id, pushedAt: now });
      const message = update.message ?? update.edited_message;
      // Malformed updates (a message without its chat) are delivered as given, not kept in the chat state.
      if (message?.chat && update.message) {
        state.putMessage({
          chatId: message.chat.id,
          messageId: message.message_id,
          ...(message.message_thread_id === undefined ? {} : { threadId: message.message_thread_id }),
          fromBot: false,
          text: message.text ?? message.caption ?? '',
          source: message.text ?? '',
          rich: false,
          deleted: false,
          history: [message.text ?? ''],
        });
      }
      if (state.webhook) {
        const hook = state.webhook;
        if (!hook.allowedUpdates || hook.allowedUpdates.includes(updateType(update))) {
          void postWebhook(update, hook.secret).catch(() => undefined);
        }
      } else {
        state.queue.push(update);
        poll.flush();
      }
      notify();
      return update.update_id;
    },
    deliverWebhook(partial, secret) {
      return postWebhook({ update_id: state.nextUpdateId(), ...partial } as Update, secret);
    },
    addFile(data, path, options) {
      const id = `file${state.files.size + 1}`;
      state.files.set(id, {
        path: path ?? `photos/${id}.jpg`,
        data,
        withoutSize: options?.withoutSize === true,
        stall: options?.stall === true,
      });
      return id;
    },
    fault: (rule) => faults.add(rule),
    clearFaults: () => faults.clear(),
    botMessages: (chatId, threadId) => state.chatMessages(chatId, threadId).filter((m) => m.fromBot),
    draftsIn: (chatId) => [...state.drafts.values()].filter((d) => d.chatId === chatId),
    callsTo: (method) =>
      state.calls.filter((c) => c.method === method && c.outcome === 'ok').map((c) => c.params),
    waitFor(predicate, timeoutMs = 10_000) {
      if (predicate()) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!predicate()) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`fake Telegram: condition not met within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
      });
    },
    async close() {
      poll.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
