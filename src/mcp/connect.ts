/**
 * One attempt to connect to an MCP server: the SDK client, with everything
 * switchboard answers and listens for installed before it connects (so no
 * early message or close is missed), and the handshake that makes it
 * usable: `initialize`, every page of the tool list, quieter server logs.
 * Whether the attempt's outcome still matters (the server may have been
 * closed or restarted meanwhile) is the caller's to judge: every event
 * names the client it came from.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../logger.js';
import { clientCapabilities, installClientHandlers, quietServerLogs } from './client-handlers.js';
import { type ElicitationAsker, installElicitation } from './elicitation.js';

/**
 * What the SDK's HTTP transport reports once it stops trying to resume a
 * broken stream. It resumes a few times on its own, then only reports it:
 * the server is gone, and a call waiting on that stream would wait for nothing.
 */
const RESUME_GAVE_UP = /^Maximum reconnection attempts/;

/** Options for {@link newClient}: who the client talks to, and where its events go. */
export interface NewClientOptions {
  /** The server's name, for the log and for questions put to people. */
  server: string;
  logger: Logger;
  /** The bot's workspace, offered to the server as its one root (`roots/list`). */
  workspace?: string;
  /** The calls running on this server now: a question the server asks goes to one of them. */
  askers: ReadonlySet<ElicitationAsker>;
  /** The server changed its tools (`notifications/tools/list_changed`); `tools` is the new full list. */
  onToolsChanged(client: Client, tools: McpTool[]): void;
  /** The connection closed, from either side. */
  onClose(client: Client): void;
  /** The HTTP transport gave up resuming a broken stream; `message` says how. */
  onStreamLost(client: Client, message: string): void;
}

/** A new SDK client for one connection attempt, its handlers installed; not yet connected. */
export function newClient(options: NewClientOptions): Client {
  const { server, logger, workspace } = options;
  const client: Client = new Client(
    { name: 'switchboard', version: '1' },
    {
      capabilities: clientCapabilities(workspace),
      listChanged: {
        tools: {
          // The SDK refetches the list itself; a failed refetch keeps the list we have.
          onChanged: (err, tools) => {
            if (!err && tools) options.onToolsChanged(client, tools);
          },
        },
      },
    },
  );
  client.onclose = () => options.onClose(client);
  client.onerror = (err) => {
    if (RESUME_GAVE_UP.test(err.message)) options.onStreamLost(client, err.message);
  };
  installElicitation(client, { server, logger, askers: options.askers });
  installClientHandlers(client, { server, logger, ...(workspace === undefined ? {} : { workspace }) });
  return client;
}

/**
 * Connects `client` over `transport` and returns the server's tools. Each
 * step gets `timeout`: a server that hangs in its handshake fails the
 * attempt instead of holding it open.
 */
export async function handshake(client: Client, transport: Transport, timeout: number): Promise<McpTool[]> {
  await client.connect(transport, { timeout });
  const tools = await listAllTools(client, timeout);
  await quietServerLogs(client, timeout);
  return tools;
}

/** Every page of a server's tools; none when it offers no tools at all (only prompts or resources). */
async function listAllTools(client: Client, timeout: number): Promise<McpTool[]> {
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
