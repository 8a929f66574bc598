/**
 * The messaging endpoint's HTTP server: the Teams SDK's `IHttpServerAdapter`
 * on plain node:http, so the bot listens on its own port (TEAMS_PORT) with
 * nothing of Express, and the same port answers the ready bot's /healthz,
 * /readyz and /metrics (the `routes` it is given) without a token.
 *
 * Before the SDK's handler (which validates the token and dispatches the
 * activity) a request passes `screen`, the adapter's own checks; a request
 * it refuses never reaches the SDK or the core. Bodies are bounded (an
 * activity is at most ~100 KB; 1 MiB is plenty) and must be JSON.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HttpRoutes } from '../../src/bot/adapter-contract.js';
import type { Logger } from '../../src/logger.js';

/** What the SDK hands a route and expects back (its `IHttpServerAdapter` types, restated so this file needs no SDK import). */
export interface RouteRequest {
  readonly body: unknown;
  readonly headers: Record<string, string | string[]>;
}
/** A route's answer. */
export interface RouteResponse {
  readonly status: number;
  readonly body?: unknown;
}
type RouteHandler = (request: RouteRequest) => Promise<RouteResponse>;

/** Options of {@link MessagingServer}. */
export interface MessagingServerOptions {
  /** 127.0.0.1 in tests; all interfaces by default. */
  host?: string;
  routes?: HttpRoutes;
  logger: Logger;
  /** The adapter's checks before the SDK's: an answer refuses the request with it. */
  screen?: (request: RouteRequest) => Promise<RouteResponse | undefined>;
  maxBodyBytes?: number;
}

class BodyTooLarge extends Error {}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new BodyTooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function reply(res: ServerResponse, status: number, body?: unknown): void {
  if (body === undefined) {
    res.writeHead(status).end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(text);
}

/** The SDK's HTTP server adapter, on node:http. */
export class MessagingServer {
  readonly #routes = new Map<string, RouteHandler>();
  #server: Server | undefined;

  constructor(private readonly options: MessagingServerOptions) {}

  /** Called by the SDK for the messaging endpoint (`/api/messages`). */
  registerRoute(method: 'POST', path: string, handler: RouteHandler): void {
    this.#routes.set(`${method} ${path}`, handler);
  }

  /** The port it listens on, once started. */
  get port(): number | undefined {
    const address = this.#server?.address();
    return address && typeof address === 'object' ? (address as AddressInfo).port : undefined;
  }

  get listening(): boolean {
    return this.#server?.listening ?? false;
  }

  async start(port: number | string): Promise<void> {
    const server = createServer((req, res) => void this.#handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(Number(port), this.options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.#server = server;
  }

  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      if (this.options.routes?.handle(req, res)) return;
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const handler = this.#routes.get(`${req.method} ${path}`);
      if (!handler) return reply(res, 404, { error: 'not found' });
      let body: unknown;
      try {
        body = JSON.parse((await readBody(req, this.options.maxBodyBytes ?? 1 << 20)).toString('utf8'));
      } catch (err) {
        if (err instanceof BodyTooLarge) return reply(res, 413, { error: 'body too large' });
        return reply(res, 400, { error: 'the body is not JSON' });
      }
      const request: RouteRequest = { body, headers: req.headers as Record<string, string | string[]> };
      const refused = await this.options.screen?.(request);
      if (refused) return reply(res, refused.status, refused.body);
      const answer = await handler(request);
      reply(res, answer.status, answer.body);
    } catch (err) {
      this.options.logger.error({ err }, 'the Teams messaging endpoint failed on a request');
      if (!res.headersSent) reply(res, 500, { error: 'internal error' });
    }
  }
}
