/**
 * The fake Slack's HTTP side on 127.0.0.1: `POST /api/<method>` (form or
 * JSON bodies, Bearer tokens), response URLs (`POST /response/<id>`), every
 * call recorded, and fault hooks (429s, 5xx, slow answers, dropped
 * connections) for tests of how the bot copes.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { type Args, METHODS, type MethodContext, type MethodResult } from './methods.js';

/** One Web API call as the fake saw it. */
export interface RecordedCall {
  method: string;
  args: Args;
  /** Milliseconds since the fake started. */
  at: number;
  /** HTTP status answered (200 for `ok:false` errors, like Slack). */
  status: number;
  /** `error` of an ok:false answer. */
  error?: string;
}

/** A fault to inject; matched against each call in order. */
export interface FaultRule {
  /** Method name or pattern; all methods when left out. */
  method?: string | RegExp;
  /** Answer this HTTP status (429 sends Retry-After). */
  status?: number;
  /** Answer `{ok:false, error}`. */
  error?: string;
  retryAfterSec?: number;
  /** Wait this long before answering (the call still runs unless another fault applies). */
  delayMs?: number;
  /** Destroy the connection without answering. */
  drop?: boolean;
  /** A lost answer: the request is taken and never answered, the connection left open until the client gives up or the fake closes (what a half-open connection or a stuck proxy looks like to a client). */
  hang?: boolean;
  /** How many calls it applies to (default 1; Infinity for all). */
  times?: number;
  /** Probability that a matching call is hit (default 1). */
  share?: number;
}

const JSON_FIELDS = new Set(['blocks', 'chunks', 'attachments', 'metadata']);

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Parses a Web API body the way Slack does: form fields (nested values as JSON strings) or JSON. */
export function parseArgs(raw: string, contentType: string | undefined): Args {
  if (!raw) return {};
  if (contentType?.includes('application/json')) return JSON.parse(raw) as Args;
  const args: Args = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    if (JSON_FIELDS.has(key) && /^[[{]/.test(value)) {
      try {
        args[key] = JSON.parse(value);
        continue;
      } catch {
        args[key] = value;
        continue;
      }
    }
    args[key] = value;
  }
  return args;
}

/** Options of {@link FakeSlackHttp}. */
export interface FakeSlackHttpOptions {
  botToken: string;
  appToken: string;
  context: Omit<MethodContext, 'baseUrl'>;
  /** Called for WebSocket upgrades (Socket Mode). */
  onUpgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
}

/** The HTTP server with recording and faults. */
export class FakeSlackHttp {
  readonly calls: RecordedCall[] = [];
  readonly faults: FaultRule[] = [];
  /** Called after every recorded call (and response-URL post). */
  readonly listeners = new Set<() => void>();
  readonly server: Server;
  url = '';
  readonly #started = Date.now();
  readonly #options: FakeSlackHttpOptions;
  #context?: MethodContext;

  constructor(options: FakeSlackHttpOptions) {
    this.#options = options;
    this.server = createServer((req, res) => {
      this.#handle(req, res).catch((err: unknown) => {
        res.writeHead(500).end(String(err));
      });
    });
    if (options.onUpgrade) this.server.on('upgrade', options.onUpgrade);
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}`;
    // Assigned onto the given object so its getters (the streaming mode) stay live.
    this.#context = Object.assign(this.#options.context, { baseUrl: this.url });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Calls of one method, in order. */
  callsOf(method: string): RecordedCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  /** Calls the server answered with a 429. */
  get rateLimited(): RecordedCall[] {
    return this.calls.filter((c) => c.status === 429);
  }

  #takeFault(method: string): FaultRule | undefined {
    for (const rule of this.faults) {
      const matches =
        rule.method === undefined ||
        (typeof rule.method === 'string' ? rule.method === method : rule.method.test(method));
      if (!matches || (rule.times ?? 1) <= 0) continue;
      if (rule.share !== undefined && Math.random() >= rule.share) continue;
      rule.times = (rule.times ?? 1) - 1;
      return rule;
    }
    return undefined;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const raw = await readBody(req);
    const context = this.#context;
    if (!context) throw new Error('fake Slack not listening');
    if (req.method === 'POST' && path.startsWith('/response/')) {
      const body = parseArgs(raw, req.headers['content-type']);
      context.state.responses.push({ id: path.slice('/response/'.length), body });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      this.#notify();
      return;
    }
    if (req.method === 'GET' && path.startsWith('/files/')) {
      const file = context.state.files.get(path.slice('/files/'.length));
      // Like Slack: without the token the answer is the HTML sign-in page, not the file.
      if (!file || req.headers.authorization !== `Bearer ${this.#options.botToken}`) {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html>sign in</html>');
        return;
      }
      context.state.fileDownloads.push(path.slice('/files/'.length));
      res
        .writeHead(200, { 'content-type': file.mimetype, 'content-length': file.data.length })
        .end(file.data);
      return;
    }
    if (req.method !== 'POST' || !path.startsWith('/api/')) {
      res.writeHead(404).end();
      return;
    }
    const method = path.slice('/api/'.length);
    const args = parseArgs(raw, req.headers['content-type']);
    const at = Date.now() - this.#started;
    const fault = this.#takeFault(method);
    if (fault?.delayMs) await new Promise((r) => setTimeout(r, fault.delayMs));
    if (fault?.hang) {
      this.calls.push({ method, args, at, status: 0, error: 'hung' });
      this.#notify();
      return;
    }
    if (fault?.drop) {
      this.calls.push({ method, args, at, status: 0, error: 'dropped' });
      req.socket.destroy();
      this.#notify();
      return;
    }
    let result: MethodResult;
    if (fault?.status !== undefined)
      result = {
        status: fault.status,
        ...(fault.status === 429 ? { retryAfterSec: fault.retryAfterSec ?? 1 } : {}),
        body: { ok: false, error: fault.status === 429 ? 'ratelimited' : 'fatal_error' },
      };
    else if (fault?.error) result = { body: { ok: false, error: fault.error } };
    else result = this.#call(method, args, req.headers.authorization, context);
    const status = 'status' in result ? result.status : 200;
    const body = result.body ?? { ok: false };
    this.calls.push({
      method,
      args,
      at,
      status,
      ...(body.ok === false ? { error: String(body.error) } : {}),
    });
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
    if ('retryAfterSec' in result && result.retryAfterSec !== undefined)
      headers['retry-after'] = String(result.retryAfterSec);
    res.writeHead(status, headers).end(JSON.stringify(body));
    this.#notify();
  }

  #notify(): void {
    for (const listener of this.listeners) listener();
  }

  #call(method: string, args: Args, authorization: string | undefined, context: MethodContext): MethodResult {
    const handler = METHODS[method];
    if (!handler) return { body: { ok: false, error: 'unknown_method' } };
    const token = authorization?.startsWith('Bearer ') ? authorization.slice(7) : args.token;
    const expected = method === 'apps.connections.open' ? this.#options.appToken : this.#options.botToken;
    if (!token) return { body: { ok: false, error: 'not_authed' } };
    if (token !== expected) return { body: { ok: false, error: 'invalid_auth' } };
    return handler(args, context);
  }
}
