/**
 * The MCP server file (`SWITCHBOARD_MCP_CONFIG`), in the shape of Claude
 * Code's `.mcp.json`: `{"mcpServers": {"name": {...}}}`, stdio servers with
 * `command`, `args`, `env` (`"type": "stdio"` optional), Streamable HTTP
 * servers with `"type": "http"`, `url`, `headers`. `${VAR}` and
 * `${VAR:-default}` are expanded from the environment in the five fields
 * Claude Code expands (command, args, env, url, headers), so secrets stay
 * out of the file. Keys Claude Code does not know are ignored there, so the
 * two of ours (`permission`, `toolPermissions`) keep the file usable by both.
 *
 * Everything wrong with the file is reported at once, each problem naming
 * its server, as a `CONFIG_INVALID` error: start-up stops with exit 2.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { SwitchboardError } from '../errors.js';
import { holdsSecret } from '../tools/env.js';
import type { ToolClass } from '../vocabulary.js';
import { expandVariables } from './expand.js';

/** The environment variable that names the file. */
export const MCP_CONFIG_VARIABLE = 'SWITCHBOARD_MCP_CONFIG';

/** A server name must fit `mcp__<server>__<tool>` under the API's tool-name rule (`^[a-zA-Z0-9_-]{1,64}$`). */
const SERVER_NAME = /^[A-Za-z0-9_-]{1,40}$/;

/** How a stdio server is started. */
export interface StdioTransportConfig {
  type: 'stdio';
  command: string;
  args: string[];
  /** Added to the scrubbed environment every tool child gets. */
  env: Record<string, string>;
  /** The folder of the config file, as Claude Code runs servers from the project's root. */
  cwd: string;
}

/** Where a Streamable HTTP server listens. */
export interface HttpTransportConfig {
  type: 'http';
  url: string;
  headers: Record<string, string>;
}

/** One server of the file, validated and expanded. */
export interface McpServerConfig {
  name: string;
  transport: StdioTransportConfig | HttpTransportConfig;
  /** Overrides the class every tool of this server would get from its annotations. */
  permission?: ToolClass;
  /** Per tool (the server's own tool name), overriding `permission` and the annotations. */
  toolPermissions: Record<string, ToolClass>;
}

/** The file, validated: its servers, and the values expanded into it (scrubbed from logs). */
export interface McpConfig {
  path: string;
  servers: McpServerConfig[];
  /**
   * Values that came from `${VAR}` in env, args, headers or url: credentials,
   * as far as the bot can tell, so they are scrubbed from logs and from
   * everything the servers say that reaches a chat or the model.
   */
  secrets: string[];
  /** Most silence during one call, in ms (SWITCHBOARD_MCP_TIMEOUT); the default when absent. */
  callTimeoutMs?: number;
}

const permission = z.enum(['inspect', 'modify', 'execute'], {
  message: 'expected "inspect" (runs without asking), "modify" or "execute" (ask first in default mode)',
});
const overrides = {
  permission: permission.optional(),
  toolPermissions: z.record(z.string(), permission).optional(),
};
const stdioSchema = z.looseObject({
  type: z.literal('stdio').optional(),
  command: z.string({ message: 'is missing: a stdio server needs "command"' }).min(1, 'is empty'),
  args: z.array(z.string(), { message: 'expected an array of strings' }).optional(),
  env: z.record(z.string(), z.string(), { message: 'expected an object of string values' }).optional(),
  ...overrides,
});
const httpSchema = z.looseObject({
  type: z.literal('http'),
  url: z.string({ message: 'is missing: an http server needs "url"' }).min(1, 'is empty'),
  headers: z.record(z.string(), z.string(), { message: 'expected an object of string values' }).optional(),
  ...overrides,
});

/**
 * Reads, validates and expands the file at `path`. `env` is where `${VAR}`
 * comes from; `botSecrets` are the bot's own credentials, which no server
 * may be handed.
 *
 * @throws SwitchboardError `CONFIG_INVALID` listing every problem, each naming its server.
 */
export function loadMcpConfig(
  path: string,
  env: Record<string, string | undefined>,
  botSecrets: readonly string[] = [],
): McpConfig {
  const file = resolve(path);
  const problems: string[] = [];
  const raw = readJson(file);
  const servers: McpServerConfig[] = [];
  const secrets = new Set<string>();
  const entries = mcpServersOf(raw);
  for (const [name, value] of Object.entries(entries)) {
    const server = parseServer(name, value, dirname(file), env, problems, secrets);
    if (server) servers.push(server);
  }
  for (const server of servers) problems.push(...botSecretsHandedTo(server, botSecrets));
  if (problems.length > 0) throw invalid(file, problems);
  servers.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { path: file, servers, secrets: [...secrets].filter((s) => s.length >= 8) };
}

/** A problem for each field of `server` that holds one of the bot's own credentials. */
function botSecretsHandedTo(server: McpServerConfig, botSecrets: readonly string[]): string[] {
  const t = server.transport;
  const fields: Array<readonly [string, string]> =
    t.type === 'stdio'
      ? [
          ['command', t.command],
          ...t.args.map((arg, i) => [`args.${i}`, arg] as const),
          ...Object.entries(t.env).map(([k, v]) => [`env.${k}`, v] as const),
        ]
      : [['url', t.url], ...Object.entries(t.headers).map(([k, v]) => [`headers.${k}`, v] as const)];
  return fields
    .filter(([, value]) => holdsSecret(value, botSecrets))
    .map(
      ([where]) =>
        `server "${server.name}": ${where} holds one of the bot's own credentials (a platform token or the API key); give the server a credential of its own`,
    );
}

function readJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'there is no such file' : String(err);
    throw invalid(file, [`cannot be read (${why}); point it at a .mcp.json-style file or unset it`]);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw invalid(file, [`is not valid JSON (${(err as Error).message})`]);
  }
}

function mcpServersOf(raw: unknown): Record<string, unknown> {
  const servers = (raw as { mcpServers?: unknown } | null)?.mcpServers;
  if (typeof raw !== 'object' || raw === null || typeof servers !== 'object' || servers === null)
    throw new SwitchboardError(
      'CONFIG_INVALID',
      `Invalid configuration:\n  ${MCP_CONFIG_VARIABLE}: the file needs an "mcpServers" object, as in {"mcpServers": {"github": {"command": "npx", "args": ["-y", "some-mcp-server"]}}}`,
      { detail: { variables: [MCP_CONFIG_VARIABLE] } },
    );
  return servers as Record<string, unknown>;
}

function parseServer(
  name: string,
  value: unknown,
  cwd: string,
  env: Record<string, string | undefined>,
  problems: string[],
  secrets: Set<string>,
): McpServerConfig | undefined {
  const where = `server "${name.slice(0, 80)}"`;
  if (!SERVER_NAME.test(name)) {
    problems.push(
      `${where}: the name must be 1-40 letters, digits, "_" or "-", so that its tools can be named mcp__${'<server>'}__<tool> (the API allows only those characters, 64 at most)`,
    );
    return undefined;
  }
  const type = (value as { type?: unknown } | null)?.type ?? 'stdio';
  const schema = type === 'stdio' ? stdioSchema : type === 'http' ? httpSchema : undefined;
  if (!schema) {
    const hint = type === 'sse' ? ' (the older HTTP+SSE transport is not supported; use "http")' : '';
    problems.push(`${where}: unknown type ${JSON.stringify(type)}${hint}: use "stdio" or "http"`);
    return undefined;
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    for (const issue of parsed.error.issues)
      problems.push(`${where}: ${issue.path.join('.') || 'entry'} ${issue.message}`);
    return undefined;
  }
  const data = parsed.data as z.infer<typeof stdioSchema> & Partial<z.infer<typeof httpSchema>>;
  const expand = (text: string, field: string, secret: boolean) => {
    const out = expandVariables(text, env, (variable) =>
      problems.push(
        `${where}: ${field} uses \${${variable}}, which is not set in the environment; set it, or give a default as \${${variable}:-value}`,
      ),
    );
    if (secret) for (const value of out.values) secrets.add(value);
    return out.text;
  };
  const mapValues = (record: Record<string, string> | undefined, field: string) =>
    Object.fromEntries(Object.entries(record ?? {}).map(([k, v]) => [k, expand(v, `${field}.${k}`, true)]));
  const common = {
    name,
    ...(data.permission ? { permission: data.permission } : {}),
    toolPermissions: data.toolPermissions ?? {},
  };
  if (type === 'http') {
    const url = expand(data.url ?? '', 'url', true);
    if (!/^https?:\/\/\S+$/.test(url)) {
      problems.push(`${where}: url must be an http(s) URL, like https://mcp.example.com/mcp`);
      return undefined;
    }
    return { ...common, transport: { type: 'http', url, headers: mapValues(data.headers, 'headers') } };
  }
  return {
    ...common,
    transport: {
      type: 'stdio',
      command: expand(data.command, 'command', false),
      args: (data.args ?? []).map((arg, i) => expand(arg, `args.${i}`, true)),
      env: mapValues(data.env, 'env'),
      cwd,
    },
  };
}

function invalid(file: string, problems: readonly string[]): SwitchboardError {
  return new SwitchboardError(
    'CONFIG_INVALID',
    `Invalid configuration:\n  ${problems.map((p) => `${MCP_CONFIG_VARIABLE} (${file}): ${p}`).join('\n  ')}`,
    { detail: { variables: [MCP_CONFIG_VARIABLE] } },
  );
}
