/**
 * The pieces of connecting to one MCP server: its transport, made from the
 * config (Streamable HTTP, or stdio in a process group of its own), and the
 * full list of its tools, every page of it.
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { McpServerConfig } from './config.js';
import { GroupStdioTransport } from './stdio-transport.js';

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

/** Every page of a server's tools; none when it offers no tools at all (only prompts or resources). */
export async function listAllTools(client: Client, timeout: number): Promise<McpTool[]> {
  const tools: McpTool[] = [];
  if (!client.getServerCapabilities()?.tools) return tools;
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}
