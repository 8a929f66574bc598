/**
 * `mcp__<server>__read_resource`: how the model opens a resource link a
 * tool of the server returned (`[resource link: name uri]`), or any other
 * resource of the server, with `resources/read`. Offered for every server
 * that has the `resources` capability; its permission class is decided
 * like a tool's (the config's `toolPermissions.read_resource`, else the
 * server's `permission`, else read-only: `inspect`).
 */
import type { CallToolResult, Tool as McpTool, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { Tool } from '../tools/types.js';
import type { McpServerConnection } from './client.js';
import type { McpServerConfig } from './config.js';
import { toToolResult } from './results.js';
import { mcpToolClass, mcpToolName } from './tools.js';

/** The tool's own name, as if the server offered it. */
export const READ_RESOURCE = 'read_resource';

/** What the permission rule sees: a read-only tool named `read_resource`. */
const AS_LISTED: McpTool = {
  name: READ_RESOURCE,
  inputSchema: { type: 'object' },
  annotations: { readOnlyHint: true },
};

/** Options for {@link resourceTool}. */
export interface ResourceToolOptions {
  server: McpServerConfig;
  connection: Pick<McpServerConnection, 'readResource'>;
  maxOutputChars: number;
  scrub: (text: string) => string;
}

/** The read-resource tool of one server. */
export function resourceTool(options: ResourceToolOptions): Tool {
  const { server, connection, maxOutputChars, scrub } = options;
  return {
    name: mcpToolName(server.name, READ_RESOURCE),
    description: `Reads a resource of the ${server.name} MCP server by its URI, such as a resource link one of its tools returned.`,
    inputSchema: {
      type: 'object',
      properties: { uri: { type: 'string', description: 'The resource URI, as the server gave it' } },
      required: ['uri'],
    },
    toolClass: mcpToolClass(server, AS_LISTED),
    summarize: (input) => `read ${String(input.uri ?? '').slice(0, 80)} on ${server.name}`,
    scopeKey: (input) => String(input.uri ?? ''),
    async run(input, context) {
      const uri = input.uri;
      if (typeof uri !== 'string' || uri === '')
        return { content: 'Give "uri": the resource URI, as the server gave it.', isError: true };
      let read: ReadResourceResult;
      try {
        read = await connection.readResource(uri, context.signal);
      } catch (err) {
        throw new Error(scrub((err as Error).message));
      }
      const out = toToolResult(asToolResult(read), maxOutputChars);
      return { ...out, content: scrub(out.content) };
    },
  };
}

/** The resource's contents as tool-result blocks: text as text, images as images, other binaries named. */
function asToolResult(read: ReadResourceResult): CallToolResult {
  return {
    content: read.contents.map((part) => {
      if ('text' in part && typeof part.text === 'string')
        return { type: 'text' as const, text: `[resource ${part.uri}]\n${part.text}` };
      const blob = 'blob' in part && typeof part.blob === 'string' ? part.blob : '';
      if (part.mimeType?.startsWith('image/'))
        return { type: 'image' as const, data: blob, mimeType: part.mimeType };
      return {
        type: 'resource' as const,
        resource: { uri: part.uri, blob, ...(part.mimeType ? { mimeType: part.mimeType } : {}) },
      };
    }),
  };
}
