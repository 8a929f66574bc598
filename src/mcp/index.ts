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
import { SwitchboardError } from '../errors.js';
import { type Logger, scrubSecrets } from '../logger.js';
import { BASH_DEFAULT_MAX_OUTPUT_CHARS } from '../tools/bash.js';
import type { Tool, ToolSource } from '../tools/types.js';
import type { ToolServerStatus } from '../vocabulary.js';
import { McpServerConnection } from './client.js';
import type { McpServerConfig } from './config.js';
import { MCP_CONNECT_TIMEOUT_MS } from './lifecycle.js';
import { signInCommands } from './oauth/commands.js';
import type { McpOAuth } from './oauth/login.js';
import { promptArguments, promptText, toToolPrompt } from './prompts.js';
import { READ_RESOURCE, resourceTool } from './resource-tool.js';
import { type McpToolOutcome, mcpTool } from './tools.js';

export { loadMcpConfig, MCP_CONFIG_VARIABLE, type McpConfig, type McpServerConfig } from './config.js';

/** Options for {@link startMcpServers}. */
export interface McpServersOptions {
  servers: readonly McpServerConfig[];
  /** The scrubbed environment of tool children (scrubbedEnv); each stdio server's `env` is added to it. */
  baseEnv: Record<string, string>;
  clock: Clock;
  logger: Logger;
  /**
   * The values expanded from the config (McpConfig.secrets): removed from
   * every result, error and status line the servers' words reach.
   */
  secrets?: readonly string[];
  /** Most characters of text one result returns; default Bash's 30,000. */
  maxOutputChars?: number;
  /** How long a server has to connect and list its tools (default 30 s). */
  connectTimeoutMs?: number;
  /** Most silence during one call before it fails and the server is restarted (default 30 s). */
  callTimeoutMs?: number;
  /** The bot's workspace, offered to servers as their root (`roots/list`). */
  workspace?: string;
  /** Sign-ins to HTTP servers (OAuth); without it `/mcp login` says which settings it needs. */
  oauth?: McpOAuth;
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
  const secrets = options.secrets ?? [];
  const scrub = (text: string) => scrubSecrets(text, secrets);
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
      ...(options.workspace === undefined ? {} : { workspace: options.workspace }),
      ...(options.oauth && config.transport.type === 'http'
        ? { authProvider: options.oauth.providerFor({ name: config.name, url: config.transport.url }) }
        : {}),
    }),
  }));
  const connections = servers.map((s) => s.connection);
  const byName = new Map(connections.map((c) => [c.name, c]));
  // One outcome per listed tool object: an unchanged list gives the very same Tool objects.
  const made = new WeakMap<object, McpToolOutcome>();

  /** What became of each tool one server lists now: offered, or left out and why (logged once). */
  const outcomesOf = ({ config, connection }: (typeof servers)[number]) =>
    connection.tools.map((listed) => {
      let outcome = made.get(listed);
      if (!outcome) {
        outcome = mcpTool(listed, { server: config, connection, maxOutputChars, scrub });
        made.set(listed, outcome);
        if ('reason' in outcome) warnLeftOut(config.name, listed.name, outcome.reason);
      }
      return { listed, outcome };
    });
  // One read_resource tool per server, made once, offered while the server has resources and
  // lists no tool of that name itself.
  const readers = new Map(
    servers.map(({ config, connection }) => [
      connection,
      resourceTool({ server: config, connection, maxOutputChars, scrub }),
    ]),
  );
  const toolsOf = (server: (typeof servers)[number]): Tool[] => {
    const offered = outcomesOf(server).flatMap(({ outcome }) => ('tool' in outcome ? [outcome.tool] : []));
    const reader = readers.get(server.connection);
    const own = server.connection.tools.some((t) => t.name === READ_RESOURCE);
    return reader && server.connection.hasResources && !own ? [...offered, reader] : offered;
  };

  const warnLeftOut = (server: string, tool: string, reason: string) => {
    const key = `${server}\u0000${tool}\u0000${reason}`;
    if (warned.has(key)) return;
    warned.add(key);
    logger.warn(
      { server, tool: tool.slice(0, 100) },
      `MCP tool "${tool.slice(0, 100)}" of "${server}" is left out: ${reason}`,
    );
  };

  const signIns = signInCommands(options.oauth, options.servers, (name) => byName.get(name));
  await Promise.all(connections.map((c) => c.start()));
  return {
    signIn: signIns.signIn,
    signOut: signIns.signOut,
    tools() {
      current ??= servers.flatMap(toolsOf).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      return current;
    },
    servers(): ToolServerStatus[] {
      return servers.map((server) => {
        const c = server.connection;
        const outcomes = outcomesOf(server);
        const leftOut = outcomes.flatMap(({ listed, outcome }) =>
          'reason' in outcome ? [{ name: listed.name, reason: outcome.reason }] : [],
        );
        return {
          name: c.name,
          state: c.state === 'closed' ? 'down' : c.state,
          tools: toolsOf(server)
            .map((t) => t.name)
            .sort(),
          ...(leftOut.length > 0 ? { leftOut } : {}),
          ...(c.problem && c.state !== 'connected' ? { problem: scrub(c.problem) } : {}),
        };
      });
    },
    async prompts() {
      const signal = AbortSignal.timeout(options.connectTimeoutMs ?? MCP_CONNECT_TIMEOUT_MS);
      const lists = await Promise.all(
        servers.map(async ({ config, connection }) =>
          (await connection.listPrompts(signal).catch(() => [])).map((p) =>
            toToolPrompt(config.name, p, scrub),
          ),
        ),
      );
      return lists.flat();
    },
    async promptText(server, name, words) {
      const connection = byName.get(server);
      if (!connection)
        throw new SwitchboardError(
          'NOT_FOUND',
          `There is no MCP server "${server.slice(0, 40)}". /mcp prompts lists them.`,
        );
      const signal = AbortSignal.timeout(options.connectTimeoutMs ?? MCP_CONNECT_TIMEOUT_MS);
      const listed = (await connection.listPrompts(signal)).find((p) => p.name === name);
      if (!listed)
        throw new SwitchboardError(
          'NOT_FOUND',
          `The MCP server "${server}" has no prompt "${name.slice(0, 60)}". /mcp prompts lists them.`,
        );
      const prompt = toToolPrompt(server, listed, scrub);
      const result = await connection.getPrompt(name, promptArguments(prompt, words), signal);
      return scrub(promptText(result));
    },
    connection: (name) => byName.get(name),
    async close() {
      await Promise.all(connections.map((c) => c.close()));
    },
  };
}
