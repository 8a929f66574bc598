/**
 * MCP servers as the agent's tools: every server of the config file
 * connected at start, their tools offered as `mcp__<server>__<tool>`, kept
 * up to date as servers drop, come back or change their tool lists.
 *
 * The list is byte-stable: sorted by name, schemas with sorted keys, and
 * rebuilt only when a server changes, so a reconnect that yields the same
 * tools yields the same request bytes and the prompt cache keeps matching.
 * Sessions take it at the start of each turn (see ToolSource).
 */
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { BASH_DEFAULT_MAX_OUTPUT_CHARS } from '../tools/bash.js';
import type { Tool, ToolSource } from '../tools/types.js';
import type { ToolServerStatus } from '../vocabulary.js';
import { McpServerConnection } from './client.js';
import type { McpServerConfig } from './config.js';
import { mcpTool, mcpToolName } from './tools.js';

export { loadMcpConfig, MCP_CONFIG_VARIABLE, type McpConfig, type McpServerConfig } from './config.js';

/** Options for {@link startMcpServers}. */
export interface McpServersOptions {
  servers: readonly McpServerConfig[];
  /** The scrubbed environment of tool children (scrubbedEnv); each stdio server's `env` is added to it. */
  baseEnv: Record<string, string>;
  clock: Clock;
  logger: Logger;
  /** Most characters of text one result returns; default Bash's 30,000. */
  maxOutputChars?: number;
  /** How long a server has to connect and list its tools (default 30 s). */
  connectTimeoutMs?: number;
  /** Most silence during one call before it fails and the server is restarted (default 30 s). */
  callTimeoutMs?: number;
}

/** The running servers: a {@link ToolSource} for sessions, closed with the bot. */
export interface McpServers extends ToolSource {
  /** One server's connection (tests and diagnostics). */
  connection(name: string): McpServerConnection | undefined;
  /** Ends every server (stdio servers with their whole process group). */
  close(): Promise<void>;
}

/**
 * Starts every server and waits for each one's first attempt. A server that
 * fails is left out with a warning and retried; it never stops the bot.
 *
 * @example
 * const mcp = await startMcpServers({ servers: config.mcp.servers, baseEnv: scrubbedEnv(), clock, logger });
 * const sessions = createSessionFactory({ ..., toolSource: mcp });
 */
export async function startMcpServers(options: McpServersOptions): Promise<McpServers> {
  const { logger } = options;
  const maxOutputChars = options.maxOutputChars ?? BASH_DEFAULT_MAX_OUTPUT_CHARS;
  const warned = new Set<string>();
  let current: readonly Tool[] | undefined;
  const servers = options.servers.map((config) => ({
    config,
    connection: new McpServerConnection({
      config,
      baseEnv: options.baseEnv,
      clock: options.clock,
      logger: logger.child({ component: 'mcp' }),
      // Rebuilt on the next ask, not now: a session keeps the list it took for its turn.
      onChange: () => {
        current = undefined;
      },
      ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
      ...(options.callTimeoutMs === undefined ? {} : { callTimeoutMs: options.callTimeoutMs }),
    }),
  }));
  const connections = servers.map((s) => s.connection);
  const byName = new Map(connections.map((c) => [c.name, c]));
  // One Tool per listed tool object: an unchanged list gives the very same objects.
  const made = new WeakMap<object, Tool | undefined>();

  /** The tools one server offers now; a tool whose name the API would refuse is left out (and logged once). */
  const toolsOf = ({ config, connection }: (typeof servers)[number]): Tool[] =>
    connection.tools.flatMap((listed) => {
      if (!made.has(listed))
        made.set(listed, mcpTool(listed, { server: config, connection, maxOutputChars }));
      const tool = made.get(listed);
      if (!tool) warnBadName(config.name, listed.name);
      return tool ? [tool] : [];
    });

  const warnBadName = (server: string, tool: string) => {
    const name = mcpToolName(server, tool);
    if (warned.has(name)) return;
    warned.add(name);
    logger.warn(
      { server, tool: tool.slice(0, 100) },
      `MCP tool "${name.slice(0, 100)}" is left out: a tool name must be 1-64 letters, digits, "_" or "-" (Messages API), and this one is not`,
    );
  };

  await Promise.all(connections.map((c) => c.start()));
  return {
    tools() {
      current ??= servers.flatMap(toolsOf).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      return current;
    },
    servers(): ToolServerStatus[] {
      return servers.map((server) => {
        const c = server.connection;
        return {
          name: c.name,
          state: c.state === 'closed' ? 'down' : c.state,
          tools: toolsOf(server)
            .map((t) => t.name)
            .sort(),
          ...(c.problem && c.state !== 'connected' ? { problem: c.problem } : {}),
        };
      });
    },
    connection: (name) => byName.get(name),
    async close() {
      await Promise.all(connections.map((c) => c.close()));
    },
  };
}
