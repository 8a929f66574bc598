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
 *
 * A server that needs sign-in (the auth scenarios) is signed in to as an
 * admin would: `/mcp login`'s answer gives the link, which is followed like a
 * browser (the suite's authorization server approves at once and redirects
 * to the bot's callback, served here on a loopback port by the bot's own
 * handler), and the server connects once the code is exchanged.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import { startMcpServers } from '../../src/mcp/index.js';
import { fileCredentialStore } from '../../src/mcp/oauth/credential-store.js';
import { McpOAuth } from '../../src/mcp/oauth/login.js';
import { createSecretBox } from '../../src/mcp/oauth/secret-box.js';
import { McpSignIns } from '../../src/mcp/oauth/sign-ins.js';
import type { ElicitationAnswer, ElicitationQuestion, ElicitationValue } from '../../src/tools/types.js';

const url = process.argv.at(-1);
if (!url || !/^https?:\/\//.test(url)) {
  console.error('usage: mcp-client.ts <server url>');
  process.exit(2);
}

const logger = createLogger({ level: 'info', format: 'json' });
const dir = await mkdtemp(join(tmpdir(), 'switchboard-conformance-'));
let oauth: McpOAuth | undefined;
const callback = createServer((req, res) => {
  if (!oauth?.handle(req, res)) res.writeHead(404).end();
});
await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
oauth = new McpOAuth({
  signIns: new McpSignIns(fileCredentialStore(dir), createSecretBox(randomBytes(32))),
  servers: [{ name: 'conformance', url }],
  publicUrl: `http://127.0.0.1:${(callback.address() as AddressInfo).port}`,
  clock: systemClock,
  logger,
});
const mcp = await startMcpServers({
  servers: [{ name: 'conformance', transport: { type: 'http', url, headers: {} }, toolPermissions: {} }],
  baseEnv: {},
  clock: systemClock,
  logger,
  // The suite gives a client 30 s per scenario: fail well inside that, as a bot would.
  connectTimeoutMs: 10_000,
  callTimeoutMs: 10_000,
  oauth,
});
let failed = false;
const connection = mcp.connection('conformance');
/** What an admin does: `/mcp login`, then opens the link (the browser follows the redirects). */
async function login(): Promise<void> {
  const answer = (await mcp.signIn?.('conformance', 'console:operator')) ?? '';
  const link = answer.split('\n').at(-1) ?? '';
  console.log(`/mcp login conformance -> ${answer.split('\n')[0]}`);
  if (!/^https?:\/\//.test(link)) return;
  // The authorization server redirects to the callback, which exchanges the code.
  const page = await fetch(link, { signal: AbortSignal.timeout(20_000) });
  console.log(`sign-in page: ${page.status} ${(await page.text()).trim()}`);
}
if (connection?.problem?.startsWith('sign-in needed')) await login();
if (connection?.state !== 'connected') {
  console.error(`not connected: ${connection?.problem ?? 'unknown'}`);
  failed = true;
}
for (const tool of mcp.tools()) {
  const input = exampleInput(tool.inputSchema);
  const run = () =>
    tool.run(input, {
      cwd: process.cwd(),
      signal: AbortSignal.timeout(20_000),
      env: {},
      clock: systemClock,
      elicit: async (question) => skipEverything(question),
    });
  try {
    const result = await run().catch(async (err: unknown) => {
      // A call refused for want of scope (step-up): the admin signs in again, the call is repeated once.
      if (!/needs a new sign-in/.test((err as Error).message)) throw err;
      await login();
      return run();
    });
    console.log(`${tool.name}(${JSON.stringify(input)}) -> ${JSON.stringify(result)}`);
  } catch (err) {
    console.error(`${tool.name} failed: ${(err as Error).message}`);
  }
}
await mcp.close();
await new Promise<void>((resolve) => callback.close(() => resolve()));
await rm(dir, { recursive: true, force: true });
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
