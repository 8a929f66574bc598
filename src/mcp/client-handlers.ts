/**
 * What a server may ask of switchboard's MCP client, and what it may tell
 * it: `roots/list` (the bot's workspace, as one `file://` root, so a server
 * like server-filesystem works where the agent does) and log messages (at
 * warning and above, in the bot's log; the server is asked to send no
 * fewer-than-warning ones).
 */
import { pathToFileURL } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type ClientCapabilities,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../logger.js';

/** The MCP log levels that reach the bot's log (RFC 5424 severities, from `warning` up). */
const LOGGED_LEVELS = new Set(['warning', 'error', 'critical', 'alert', 'emergency']);

/**
 * The client's capabilities: `elicitation` (form mode: a server may ask the
 * person a question during a call), and `roots` when there is a workspace to offer.
 */
export function clientCapabilities(workspace: string | undefined): ClientCapabilities {
  return { elicitation: { form: {} }, ...(workspace === undefined ? {} : { roots: { listChanged: false } }) };
}

/** Options for {@link installClientHandlers}. */
export interface ClientHandlerOptions {
  server: string;
  logger: Logger;
  /** The bot's workspace, offered as the one root; none when absent. */
  workspace?: string;
}

/** Answers `roots/list` and logs the server's warnings; call before connecting. */
export function installClientHandlers(client: Client, options: ClientHandlerOptions): void {
  const { server, logger, workspace } = options;
  if (workspace !== undefined)
    client.setRequestHandler(ListRootsRequestSchema, () => ({
      roots: [{ uri: pathToFileURL(workspace).href, name: 'workspace' }],
    }));
  client.setNotificationHandler(LoggingMessageNotificationSchema, ({ params }) => {
    if (!LOGGED_LEVELS.has(params.level)) return;
    const data = typeof params.data === 'string' ? params.data : JSON.stringify(params.data);
    logger.warn(
      { server, mcpLevel: params.level, ...(params.logger ? { source: params.logger } : {}) },
      `MCP server "${server}" logged: ${(data ?? '').slice(0, 1_000)}`,
    );
  });
}

/** Asks a server that logs to send only warnings and worse; a refusal changes nothing. */
export async function quietServerLogs(client: Client, timeout: number): Promise<void> {
  if (!client.getServerCapabilities()?.logging) return;
  await client.setLoggingLevel('warning', { timeout }).catch(() => undefined);
}
