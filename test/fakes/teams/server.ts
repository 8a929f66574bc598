/**
 * The fake's HTTP side on 127.0.0.1, one server for everything:
 * - `/botframework/v1/.well-known/openidconfiguration` and `/keys` (login.botframework.com),
 * - `/login/<tenant>/oauth2/v2.0/token` (login.microsoftonline.com),
 * - `/teams/v3/...` the Bot Connector (the serviceUrl is `<base>/teams/`),
 * - `/files/upload/<id>` and `/files/download/<id>` (OneDrive / SharePoint).
 * Connector calls are checked in this order: the bot's token (401), injected
 * faults, rate limits (429 with Retry-After), size (413), then the operation.
 * Every request is recorded.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type Answer,
  createConversation,
  deleteActivity,
  errorBody,
  members,
  type OpContext,
  postActivity,
  updateActivity,
} from './connector.js';
import type { BotRegistration, FakeIdentity } from './identity.js';
import { type FakeTeamsLimits, messageBytes, RateCounter } from './limits.js';
import { type FaultRule, parseRoute, type RecordedCall } from './routes.js';
import { threadBase } from './state.js';

/** What the server reads from the fake. */
export interface ServerDeps {
  identity: FakeIdentity;
  bot: BotRegistration;
  limits: FakeTeamsLimits;
  now: () => number;
  opContext: () => OpContext;
  fileGet: (id: string) => { bytes: Buffer; contentType: string } | undefined;
  fileUpload: (id: string, range: string | undefined, body: Buffer) => { status: number; body: unknown };
  onCall: (call: RecordedCall) => void;
}

const UNAUTHORIZED = { message: 'Authorization has been denied for this request.' };
const DEFAULT_CODES: Record<number, string> = {
  429: 'TooManyRequests',
  500: 'InternalServerError',
  502: 'BadGateway',
  503: 'ServiceUnavailable',
  412: 'PreconditionFailed',
};

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The running HTTP server. */
export class FakeTeamsServer {
  readonly faults: FaultRule[] = [];
  #server: Server | undefined;
  #base = '';
  readonly #threads: RateCounter;
  readonly #app: RateCounter;
  readonly #deps: ServerDeps;

  constructor(deps: ServerDeps) {
    this.#deps = deps;
    this.#threads = new RateCounter(deps.limits.perThread);
    this.#app = new RateCounter(deps.limits.perApp);
  }

  /** `http://127.0.0.1:<port>`. */
  get base(): string {
    return this.#base;
  }

  /** Listens on a random loopback port. */
  async listen(): Promise<void> {
    const server = createServer((req, res) => {
      this.#handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) this.#send(res, 500, errorBody('InternalServerError', String(error)));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.#server = server;
    this.#base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /** Stops listening and cuts open connections. */
  async close(): Promise<void> {
    const server = this.#server;
    if (server === undefined) return;
    this.#server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  #send(res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}): void {
    if (body === undefined) {
      res.writeHead(status, headers).end();
      return;
    }
    res
      .writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers })
      .end(JSON.stringify(body));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.#base);
    const path = url.pathname;
    const method = req.method ?? 'GET';
    const raw = await readBody(req);
    const record = (call: Omit<RecordedCall, 'method' | 'path' | 'at'>) =>
      this.#deps.onCall({ method, path, at: this.#deps.now(), ...call });
    const { identity, bot, limits } = this.#deps;

    if (method === 'GET' && path === '/botframework/v1/.well-known/openidconfiguration') {
      record({ op: 'openid', status: 200 });
      return this.#send(res, 200, identity.openIdMetadata(`${this.#base}/botframework/v1/.well-known/keys`));
    }
    if (method === 'GET' && path === '/botframework/v1/.well-known/keys') {
      record({ op: 'keys', status: 200 });
      return this.#send(res, 200, identity.jwks());
    }
    const token = /^\/login\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(path);
    if (token !== null && method === 'POST') {
      const form = new URLSearchParams(raw.toString('utf8'));
      const answer = await identity.token(
        decodeURIComponent(token[1] ?? ''),
        form,
        bot,
        Math.floor(Date.now() / 1000),
        limits.tokenLifetimeSec,
      );
      const fields = Object.fromEntries([...form].filter(([k]) => k !== 'client_secret'));
      record({
        op: 'token',
        status: answer.status,
        body: fields,
        ...(answer.status === 200 ? {} : { error: String(answer.body.error) }),
      });
      return this.#send(res, answer.status, answer.body);
    }
    const upload = /^\/files\/upload\/([^/]+)$/.exec(path);
    if (upload !== null && method === 'PUT') {
      const answer = this.#deps.fileUpload(upload[1] ?? '', req.headers['content-range'], raw);
      record({ op: 'upload', status: answer.status });
      return this.#send(res, answer.status, answer.body);
    }
    const download = /^\/files\/download\/([^/]+)$/.exec(path);
    if (download !== null && method === 'GET') {
      const file = this.#deps.fileGet(download[1] ?? '');
      record({ op: 'download', status: file === undefined ? 404 : 200 });
      if (file === undefined) return this.#send(res, 404, errorBody('itemNotFound', 'No such file'));
      res
        .writeHead(200, { 'content-type': file.contentType, 'content-length': String(file.bytes.length) })
        .end(file.bytes);
      return;
    }
    if (!path.startsWith('/teams/v3/')) {
      record({ op: 'unknown', status: 404 });
      return this.#send(res, 404, errorBody('NotFound', `No route ${method} ${path}`));
    }
    return this.#connector(req, res, method, path.slice('/teams'.length), raw, record);
  }

  async #connector(
    req: IncomingMessage,
    res: ServerResponse,
    method: string,
    path: string,
    raw: Buffer,
    record: (call: Omit<RecordedCall, 'method' | 'path' | 'at'>) => void,
  ): Promise<void> {
    const route = parseRoute(method, path);
    let body: Record<string, unknown> = {};
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      } catch {
        record({ op: route.op, status: 400, error: 'BadSyntax' });
        return this.#send(res, 400, errorBody('BadSyntax', 'The body is not JSON'));
      }
    }
    const where = {
      op: route.op,
      ...(route.conversationId === undefined ? {} : { conversationId: route.conversationId }),
      ...(route.activityId === undefined ? {} : { activityId: route.activityId }),
      ...(raw.length > 0 ? { body } : {}),
    };
    const finish = (answer: Answer, headers: Record<string, string> = {}) => {
      const error = (answer.body as { error?: { code?: string } } | undefined)?.error?.code;
      record({ ...where, status: answer.status, ...(error === undefined ? {} : { error }) });
      this.#send(res, answer.status, answer.body, headers);
    };
    if (route.op === 'unknown')
      return finish({ status: 404, body: errorBody('NotFound', `No route ${method} ${path}`) });
    const denied = await this.#deps.identity.checkBotToken(
      req.headers.authorization,
      this.#deps.bot,
      Math.floor(Date.now() / 1000),
    );
    if (denied !== undefined) {
      record({ ...where, status: 401, error: 'Unauthorized' });
      return this.#send(res, 401, UNAUTHORIZED);
    }
    const fault = this.faults.find(
      (f) =>
        (f.op === undefined || f.op === route.op) &&
        (f.conversationId === undefined || f.conversationId === route.conversationId),
    );
    if (fault !== undefined) {
      fault.times = (fault.times ?? 1) - 1;
      if (fault.times <= 0) this.faults.splice(this.faults.indexOf(fault), 1);
      if (fault.drop === true) {
        record({ ...where, status: 0, error: 'dropped' });
        req.socket.destroy();
        return;
      }
      const headers = fault.status === 429 ? { 'retry-after': String(fault.retryAfterSec ?? 1) } : {};
      return finish(
        {
          status: fault.status,
          body: errorBody(fault.code ?? DEFAULT_CODES[fault.status] ?? 'ServiceError', 'Injected failure'),
        },
        headers,
      );
    }
    const now = this.#deps.now();
    if (route.conversationId !== undefined) {
      // Teams' "thread" is the chat or channel (ids end in @thread.tacv2 /
      // @thread.v2); a channel's reply chains (`;messageid=`) share its budget.
      const taken = this.#threads.take(`${this.#deps.bot.appId}|${threadBase(route.conversationId)}`, now);
      const app = taken.ok ? this.#app.take(this.#deps.bot.appId, now) : taken;
      if (!app.ok) {
        const retryAfter = String(Math.max(1, Math.ceil(app.retryAfterMs / 1000)));
        return finish(
          { status: 429, body: errorBody('TooManyRequests', 'Too many requests in this conversation') },
          { 'retry-after': retryAfter },
        );
      }
    }
    if (
      (route.op === 'send' || route.op === 'reply' || route.op === 'update') &&
      messageBytes(body) > this.#deps.limits.maxMessageBytes
    ) {
      return finish({ status: 413, body: errorBody('MessageSizeTooBig', 'Message size too large') });
    }
    const ctx = this.#deps.opContext();
    const cid = route.conversationId ?? '';
    const aid = route.activityId ?? '';
    if (route.op === 'send') return finish(postActivity(ctx, cid, undefined, body));
    if (route.op === 'reply') return finish(postActivity(ctx, cid, aid, body));
    if (route.op === 'update') return finish(updateActivity(ctx, cid, aid, body));
    if (route.op === 'delete') return finish(deleteActivity(ctx, cid, aid));
    if (route.op === 'createConversation') return finish(createConversation(ctx, body));
    if (route.op === 'members') return finish(members(ctx, cid, route.memberId));
    const file = this.#deps.fileGet(aid);
    if (file === undefined) return finish({ status: 404, body: errorBody('NotFound', 'No such attachment') });
    record({ ...where, status: 200 });
    res
      .writeHead(200, { 'content-type': file.contentType, 'content-length': String(file.bytes.length) })
      .end(file.bytes);
  }
}
