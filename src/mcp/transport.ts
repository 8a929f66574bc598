/**
 * The transport under one MCP server's connection, and what differs by its
 * kind: Streamable HTTP, or stdio in a process group of its own. The rest
 * of the client sees a plain SDK `Transport` and asks here for the few
 * things only one kind has (a process id, the stderr it left, a session to
 * end).
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type Clock, sleep } from '../clock.js';
import type { Logger } from '../logger.js';
import type { McpServerConfig } from './config.js';
import { GroupStdioTransport } from './stdio-transport.js';

/** How long an HTTP server gets to answer the `DELETE` that ends its session at shutdown. */
const SESSION_END_GRACE_MS = 2_000;

/** What a stdio server's transport needs besides its config. */
export interface TransportContext {
  /** The scrubbed environment every tool child gets; the server's `env` is laid over it. */
  baseEnv: Record<string, string>;
  clock: Clock;
  /** Where a stdio server's stderr goes, line by line (at debug). */
  logger: Logger;
  /** An HTTP server's sign-in (OAuth): sends its stored token, refreshes it, learns a 401. */
  authProvider?: OAuthClientProvider;
}

/** A new transport for `config`'s server (one per connection attempt). */
export function makeTransport(config: McpServerConfig, context: TransportContext): Transport {
  const t = config.transport;
  if (t.type === 'http')
    return new StreamableHTTPClientTransport(new URL(t.url), {
      requestInit: { headers: t.headers },
      ...(context.authProvider ? { authProvider: context.authProvider } : {}),
    });
  return new GroupStdioTransport({
    command: t.command,
    args: t.args,
    env: { ...context.baseEnv, ...t.env },
    cwd: t.cwd,
    clock: context.clock,
    onStderr: (line) =>
      context.logger.debug({ server: config.name, stderr: line.slice(0, 500) }, 'MCP server stderr'),
  });
}

/** A stdio server's process id (also its group's); undefined for HTTP, or before it started. */
export function serverPid(transport: Transport | undefined): number | undefined {
  return transport instanceof GroupStdioTransport ? transport.pid : undefined;
}

/** The last words a stdio server wrote to stderr: usually why it failed. Empty for HTTP. */
export function stderrTail(transport: Transport | undefined): string {
  return transport instanceof GroupStdioTransport ? transport.stderrTail : '';
}

/**
 * Ends an HTTP server's session with the `DELETE` the Streamable HTTP
 * transport asks of a client that leaves; nothing for stdio, whose process
 * group ends when the transport closes. Bounded by a grace period on
 * `clock`: a server that stopped answering must not hold up the bot's
 * shutdown. Never rejects; a refusal is logged at debug.
 */
export async function endSession(
  transport: Transport | undefined,
  context: { server: string; clock: Clock; logger: Logger },
): Promise<void> {
  if (!(transport instanceof StreamableHTTPClientTransport)) return;
  await Promise.race([
    transport
      .terminateSession()
      .catch((err: unknown) =>
        context.logger.debug({ server: context.server, err }, 'MCP session could not be ended'),
      ),
    sleep(context.clock, SESSION_END_GRACE_MS),
  ]);
}
