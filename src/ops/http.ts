/**
 * The operations endpoints: `GET /healthz` (the process is alive),
 * `GET /readyz` (every readiness check passes, else 503 with the reasons) and
 * `GET /metrics` (Prometheus text format). They carry no secret and need
 * none, so a load balancer or Prometheus can call them on any port the bot
 * opens: the platforms' webhook ports mount {@link OpsRoutes.handle} before
 * their own handler, and {@link startOpsServer} gives them a port of their
 * own when no platform opens one.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logger.js';
import type { SwitchboardMetrics } from './metrics.js';

/** One thing readiness depends on. `check` resolves to a reason when it is not ready, else undefined. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<string | undefined> | string | undefined;
}

/** A readiness check that takes longer than this counts as failed: a load balancer must not hang. */
const CHECK_TIMEOUT_MS = 2_000;

/** Request handler for the three paths; answers false for any other request, which the caller then serves. */
export interface OpsRoutes {
  handle(req: IncomingMessage, res: ServerResponse): boolean;
}

/** Runs every check (in parallel, each with a time limit) and lists the failures as `name: reason`. */
async function readinessFailures(checks: readonly ReadinessCheck[]): Promise<string[]> {
  const results = await Promise.all(
    checks.map(async ({ name, check }) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve(`no answer within ${CHECK_TIMEOUT_MS} ms`), CHECK_TIMEOUT_MS);
        timer.unref();
      });
      try {
        const reason = await Promise.race([Promise.resolve().then(check), timeout]);
        return reason === undefined ? undefined : `${name}: ${reason}`;
      } catch (err) {
        return `${name}: ${err instanceof Error ? err.message : String(err)}`;
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return results.filter((r): r is string => r !== undefined);
}

/** The routes for a bot's metrics and readiness checks. */
export function createOpsRoutes(options: {
  metrics: SwitchboardMetrics;
  readiness: () => readonly ReadinessCheck[];
  logger?: Logger;
}): OpsRoutes {
  const send = (res: ServerResponse, status: number, type: string, body: string) => {
    res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
    res.end(body);
  };
  const text = 'text/plain; charset=utf-8';
  return {
    handle(req, res) {
      const path = (req.url ?? '/').split('?')[0];
      if (path !== '/healthz' && path !== '/readyz' && path !== '/metrics') return false;
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.setHeader('allow', 'GET, HEAD');
        send(res, 405, text, `${path} answers GET only.\n`);
        return true;
      }
      const fail = (err: unknown) => {
        options.logger?.error(
          { path, err: err instanceof Error ? err.message : String(err) },
          'ops endpoint failed',
        );
        if (!res.headersSent) send(res, 500, text, 'internal error\n');
      };
      if (path === '/healthz') {
        send(res, 200, text, 'ok\n');
      } else if (path === '/readyz') {
        readinessFailures(options.readiness()).then(
          (failures) =>
            failures.length
              ? send(res, 503, text, `not ready\n${failures.join('\n')}\n`)
              : send(res, 200, text, 'ready\n'),
          fail,
        );
      } else {
        options.metrics.registry
          .metrics()
          .then((body) => send(res, 200, options.metrics.registry.contentType, body), fail);
      }
      return true;
    },
  };
}

/** A server of its own for the operations endpoints (`SWITCHBOARD_HTTP_PORT`). */
export async function startOpsServer(
  routes: OpsRoutes,
  options: { port: number; host?: string },
): Promise<{ server: Server; port: number; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    if (!routes.handle(req, res)) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('Not found. This port serves /healthz, /readyz and /metrics.\n');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
