/**
 * `/tools` and the tool-server lines of `/status`: which tools the agent
 * has, by server, and which MCP servers are down and why. What it shows
 * comes from the session factory (ToolsReport); the bot knows nothing of
 * MCP itself.
 */
import type { ToolsReport } from '../session/factory.js';
import type { ToolServerStatus } from '../vocabulary.js';
import type { CommandContext } from './command-context.js';
import { markdownInlineCode } from './format/syntax.js';

const count = (n: number) => `${n} ${n === 1 ? 'tool' : 'tools'}`;

/** One line per MCP server for `/status`: connected with its tool count, or down and why. */
export function toolServerLines(report: ToolsReport): string[] {
  return report.servers.map(
    (server) => `MCP server ${markdownInlineCode(server.name)}: ${stateOf(server, ' (see /tools)')}`,
  );
}

/** `/tools`: the built-in tools, then each MCP server's, by the names the agent calls them. */
export async function runTools(ctx: CommandContext): Promise<void> {
  const report = ctx.registry.toolsReport();
  const lines = [`Built in: ${report.fixed.map(markdownInlineCode).join(', ') || 'none'}`];
  for (const server of report.servers) {
    const head = `MCP server ${markdownInlineCode(server.name)} (${stateOf(server)})`;
    lines.push(
      server.tools.length > 0 ? `${head}: ${server.tools.map(markdownInlineCode).join(', ')}` : head,
    );
    for (const tool of server.leftOut ?? [])
      lines.push(`  left out: ${markdownInlineCode(tool.name)}, ${tool.reason}`);
  }
  if (report.servers.length === 0)
    lines.push('No MCP servers: SWITCHBOARD_MCP_CONFIG names a .mcp.json-style file to add some.');
  await ctx.answer(['Tools:', ...lines].join('\n'));
}

/** `where` points at the list of left-out tools when it is elsewhere. */
function stateOf(server: ToolServerStatus, where = ''): string {
  const left = server.leftOut?.length ?? 0;
  if (server.state === 'connected')
    return `connected, ${count(server.tools.length)}${left > 0 ? `, ${left} left out${where}` : ''}`;
  if (server.state === 'connecting') return 'connecting';
  return `down, its tools are left out until it reconnects${server.problem ? ` (${server.problem})` : ''}`;
}
