/**
 * `/tools` and the tool-server lines of `/status`: which tools the agent
 * has, by server, and which MCP servers are down and why. What it shows
 * comes from the session factory (ToolsReport); the bot knows nothing of
 * MCP itself.
 */
import type { ToolsReport } from '../session/factory.js';
import type { ToolServerStatus } from '../vocabulary.js';
import type { CommandContext } from './command-context.js';
import { plural } from './text.js';

/*
 * Command answers are sent as plain text (no Markdown on any platform), so
 * names are written as they are, without code quotes.
 */

/**
 * One line per MCP server for `/status`: connected with its tool count (and
 * how many were left out, listed by `/tools`), or down; why it is down only
 * for an operator (the reason is the server's own words, which may name its
 * settings).
 */
export function toolServerLines(report: ToolsReport, operator: boolean): string[] {
  return report.servers.map(
    (server) => `MCP server ${server.name}: ${stateOf(server, operator, ' (see /tools)')}`,
  );
}

/** `/tools`: the built-in tools, then each MCP server's, by the names the agent calls them, and what was left out. */
export async function runTools(ctx: CommandContext): Promise<void> {
  const report = ctx.registry.toolsReport();
  const operator = ctx.access.isOperator(ctx.user);
  const lines = [`Built in: ${report.fixed.join(', ') || 'none'}`];
  for (const server of report.servers) {
    const head = `MCP server ${server.name} (${stateOf(server, operator)})`;
    lines.push(server.tools.length > 0 ? `${head}: ${server.tools.join(', ')}` : head);
    for (const tool of server.leftOut ?? []) lines.push(`  left out: ${tool.name}, ${tool.reason}`);
  }
  if (report.servers.length === 0) {
    lines.push(
      operator
        ? 'No MCP servers: SWITCHBOARD_MCP_CONFIG names a .mcp.json-style file to add some.'
        : 'No MCP servers.',
    );
  }
  await ctx.answer(['Tools:', ...lines].join('\n'));
}

/** `where` points at the list of left-out tools when it is elsewhere. */
function stateOf(server: ToolServerStatus, operator: boolean, where = ''): string {
  const left = server.leftOut?.length ?? 0;
  if (server.state === 'connected')
    return `connected, ${plural(server.tools.length, 'tool')}${left > 0 ? `, ${left} left out${where}` : ''}`;
  if (server.state === 'connecting') return 'connecting';
  const why = operator && server.problem ? ` (${server.problem})` : '';
  return `down, its tools are left out until it reconnects${why}`;
}
