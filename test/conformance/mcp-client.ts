/**
 * switchboard's MCP client for the official conformance suite
 * (`@modelcontextprotocol/conformance client --command ...`, run by
 * scripts/ci-mcp-conformance.sh). The suite starts a test server for one
 * scenario and runs this with the server's URL as the last argument.
 *
 * It does what the bot does with a server from its file: connects with
 * McpServerConnection, offers the tools through mcpTool (names, schemas,
 * permission classes), calls each tool once the way a model would (every
 * required argument filled from its schema), converts the results, and
 * closes (ending the HTTP session). A question a server asks during a call
 * (elicitation) is answered as a person would who presses Skip on every
 * field, taking the server's suggested values (Decline when a field has
 * none to take). Nothing here is specific to a scenario.
 */
import { systemClock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import { startMcpServers } from '../../src/mcp/index.js';
import type { ElicitationAnswer, ElicitationQuestion, ElicitationValue } from '../../src/tools/types.js';

const url = process.argv.at(-1);
if (!url || !/^https?:\/\//.test(url)) {
  console.error('usage: mcp-client.ts <server url>');
  process.exit(2);
}

const logger = createLogger({ level: 'info', format: 'json' });
const mcp = await startMcpServers({
  servers: [{ name: 'conformance', transport: { type: 'http', url, headers: {} }, toolPermissions: {} }],
  baseEnv: {},
  clock: systemClock,
  logger,
  // The suite gives a client 30 s per scenario: fail well inside that, as a bot would.
  connectTimeoutMs: 10_000,
  callTimeoutMs: 10_000,
});
let failed = false;
const connection = mcp.connection('conformance');
if (connection?.state !== 'connected') {
  console.error(`not connected: ${connection?.problem ?? 'unknown'}`);
  failed = true;
}
for (const tool of mcp.tools()) {
  const input = exampleInput(tool.inputSchema);
  try {
    const result = await tool.run(input, {
      cwd: process.cwd(),
      signal: AbortSignal.timeout(20_000),
      env: {},
      clock: systemClock,
      elicit: async (question) => skipEverything(question),
    });
    console.log(`${tool.name}(${JSON.stringify(input)}) -> ${JSON.stringify(result)}`);
  } catch (err) {
    console.error(`${tool.name} failed: ${(err as Error).message}`);
  }
}
await mcp.close();
process.exit(failed ? 1 : 0);

/** The answer of a person who skips every field: the suggestions, or Decline when a field has none. */
function skipEverything(question: ElicitationQuestion): ElicitationAnswer {
  const content: Record<string, ElicitationValue> = {};
  for (const field of question.fields) {
    if (field.default !== undefined) content[field.name] = field.default;
    else if (field.required) return { action: 'decline' };
  }
  console.log(`${question.source} asked "${question.message}" -> ${JSON.stringify(content)}`);
  return { action: 'accept', content };
}

/** Arguments a model would give: each required property's default, or a plain value of its type. */
function exampleInput(schema: Record<string, unknown>): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const input: Record<string, unknown> = {};
  for (const key of required) {
    const p = properties[key] ?? {};
    if (p.default !== undefined) input[key] = p.default;
    else if (Array.isArray(p.enum)) input[key] = p.enum[0];
    else if (p.type === 'number' || p.type === 'integer') input[key] = 2;
    else if (p.type === 'boolean') input[key] = true;
    else if (p.type === 'object') input[key] = {};
    else if (p.type === 'array') input[key] = [];
    else input[key] = 'example';
  }
  return input;
}
