/**
 * An MCP server's tool as one of the agent's tools: named
 * `mcp__<server>__<tool>`, with the server's input schema, a permission
 * class, and a run() that calls the server.
 *
 * The class: the config's `toolPermissions[tool]`, else its `permission`,
 * else the tool's annotations (MCP spec, ToolAnnotations): `readOnlyHint:
 * true` is `inspect` (runs without asking, even in plan mode);
 * `destructiveHint: false` (changes things, but only adds) is `modify`;
 * everything else is `execute`, since the spec's defaults treat a tool
 * without annotations as possibly destructive. Annotations are the server's
 * own claims: the config decides for a server that is not trusted.
 */
import { createHash } from 'node:crypto';
import type { CallToolResult, Tool as McpTool, Progress } from '@modelcontextprotocol/sdk/types.js';
import { stringify } from 'safe-stable-stringify';
import { describeError } from '../errors.js';
import type { Tool, ToolResult } from '../tools/types.js';
import type { ToolClass } from '../vocabulary.js';
import type { McpServerConnection } from './client.js';
import type { McpServerConfig } from './config.js';
import { toToolResult } from './results.js';
import { apiInputSchema } from './schema.js';

/** The Messages API's rule for tool names (Define tools page of platform.claude.com/docs). */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * `mcp__<server>__<tool>`, as Claude Code names them. A name the API would
 * refuse (too long beside a long server name, or with characters like `.`)
 * keeps what fits of the tool's name, with other characters as `_`, and
 * ends in a short hash of the real name: still unique, and the same on
 * every start, so the prompt cache keeps matching.
 */
export function mcpToolName(server: string, tool: string): string {
  const plain = `mcp__${server}__${tool}`;
  if (TOOL_NAME.test(plain)) return plain;
  const hash = createHash('sha256').update(tool).digest('hex').slice(0, 6);
  const prefix = `mcp__${server}__`;
  const room = 64 - prefix.length - hash.length - 1;
  return `${prefix}${tool.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, Math.max(0, room))}_${hash}`;
}

/** The permission class of `tool` on `server` (see the module comment for the rule). */
export function mcpToolClass(server: McpServerConfig, tool: McpTool): ToolClass {
  const chosen = Object.hasOwn(server.toolPermissions, tool.name)
    ? server.toolPermissions[tool.name]
    : server.permission;
  if (chosen) return chosen;
  if (tool.annotations?.readOnlyHint === true) return 'inspect';
  if (tool.annotations?.destructiveHint === false) return 'modify';
  return 'execute';
}

/** Options for {@link mcpTool}. */
export interface McpToolOptions {
  server: McpServerConfig;
  connection: Pick<McpServerConnection, 'call'>;
  /** Most characters of text a result returns (the same cap as Bash's output). */
  maxOutputChars: number;
  /** Removes the values expanded from the config (tokens) from text bound for the model. */
  scrub: (text: string) => string;
}

/** The agent's tool for an MCP tool, or why it is left out. */
export type McpToolOutcome = { tool: Tool } | { reason: string };

/**
 * The agent's tool for `tool`, or why it cannot be offered: a tool the
 * server runs only as a task, or an input schema the API refuses with no
 * faithful rewrite (one such tool would make every request fail).
 */
export function mcpTool(tool: McpTool, options: McpToolOptions): McpToolOutcome {
  const { server, connection, maxOutputChars, scrub } = options;
  const name = mcpToolName(server.name, tool.name);
  if (tool.execution?.taskSupport === 'required')
    return {
      reason: 'it runs only as a task (execution.taskSupport "required"), which switchboard does not run',
    };
  const api = apiInputSchema(tool.inputSchema as Record<string, unknown>);
  if ('reason' in api) return api;
  // Keys sorted at every level: the same schema gives the same request bytes, whatever order a
  // server (or a restart of it) lists them in, so the prompt cache's tools prefix keeps matching.
  const inputSchema = JSON.parse(canonicalJson(api.schema)) as Record<string, unknown>;
  const description = scrub((tool.description ?? tool.title ?? '').trim());
  return {
    tool: {
      name,
      description: description || `The ${tool.name} tool of the ${server.name} MCP server.`,
      inputSchema,
      toolClass: mcpToolClass(server, tool),
      summarize: (input) => `${tool.name} on ${server.name}${argumentPreview(input)}`,
      scopeKey: (input) => canonicalJson(input),
      async run(input, context): Promise<ToolResult> {
        let result: CallToolResult;
        try {
          result = await connection.call(
            tool.name,
            input,
            context.signal,
            (progress) => context.reportProgress?.(scrub(progressText(server.name, progress))),
            context.elicit,
          );
        } catch (err) {
          throw new Error(scrub(describeError(err)));
        }
        const out = toToolResult(result, maxOutputChars);
        return { ...out, content: scrub(out.content) };
      },
    },
  };
}

/** `<server>: 40% <message>` (or `<server>: 3 <message>` when the server gives no total). */
export function progressText(server: string, progress: Progress): string {
  const { total } = progress;
  const amount =
    total !== undefined && total > 0
      ? `${Math.min(100, Math.floor((progress.progress / total) * 100))}%`
      : `${progress.progress}`;
  const message = progress.message?.trim();
  return `${server}: ${amount}${message ? ` ${message.slice(0, 150)}` : ''}`;
}

/** `value` as JSON with its keys sorted at every level. */
function canonicalJson(value: unknown): string {
  return stringify(value) ?? 'null';
}

/** ` (repo: "a/b", title: "Fix …")`: the first arguments, short, for status lines and prompts. */
function argumentPreview(input: Record<string, unknown>): string {
  const parts = Object.entries(input)
    .slice(0, 3)
    .map(([key, value]) => {
      const text = JSON.stringify(value) ?? String(value);
      return `${key}: ${text.length > 40 ? `${text.slice(0, 39)}…` : text}`;
    });
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}
