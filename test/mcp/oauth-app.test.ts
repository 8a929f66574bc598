/**
 * MCP sign-in in the ready bot as `npm start` assembles it: the real
 * Telegram adapter against the fake Bot API, an HTTP MCP server that needs
 * OAuth (test/fixtures/mcp/oauth-server.ts), and the callback on
 * SWITCHBOARD_HTTP_PORT behind a public URL (as behind a reverse proxy).
 */
import { randomBytes } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type AppWorld, createAppWorld } from '../adapters/telegram/app-harness.js';
import { messageUpdate } from '../fakes/telegram/index.js';
import { type OAuthMcpServer, startOAuthMcpServer } from '../fixtures/mcp/oauth-server.js';

const ANN = { id: 11, first_name: 'Ann' };
let world: AppWorld | undefined;
let server: OAuthMcpServer | undefined;
afterEach(async () => {
  await world?.close();
  await server?.close();
  world = undefined;
  server = undefined;
});

/** The text of the bot's first message in Ann's chat that contains `part`. */
async function botSays(part: string): Promise<string> {
  let found: string | undefined;
  await world?.telegram.waitFor(() => {
    found = world?.telegram.botMessages(11).find((m) => m.text.includes(part))?.text;
    return found !== undefined;
  }, 15_000);
  return found as string;
}

async function startWith(env: Record<string, string>) {
  server = await startOAuthMcpServer();
  world = await createAppWorld();
  const file = join(world.root, 'mcp.json');
  await writeFile(file, JSON.stringify({ mcpServers: { remote: { type: 'http', url: server.url } } }));
  return world.start({ SWITCHBOARD_MCP_CONFIG: file, SWITCHBOARD_ADMINS: 'telegram:11', ...env });
}

describe('MCP sign-in in the ready bot', () => {
  it('answers /mcp login with the link, takes the callback on its HTTP port, says so and connects', async () => {
    const key = randomBytes(32).toString('base64');
    const app = await startWith({
      SWITCHBOARD_HTTP_PORT: '0',
      SWITCHBOARD_PUBLIC_URL: 'https://bot.example.com',
      SWITCHBOARD_SECRET_KEY: key,
    });
    expect(app.mcp?.connection('remote')?.problem).toBe('sign-in needed: an admin runs /mcp login remote');

    world?.telegram.pushUpdate(messageUpdate({ chatId: 11, user: ANN }, '/mcp login remote'));
    const link = (await botSays('Open this link')).split('\n').at(-1) as string;

    // The browser: the authorization server approves and redirects to the public callback URL,
    // which the proxy in front of the bot forwards to SWITCHBOARD_HTTP_PORT.
    const approved = await fetch(link, { redirect: 'manual' });
    const callback = new URL(approved.headers.get('location') as string);
    expect(`${callback.origin}${callback.pathname}`).toBe('https://bot.example.com/mcp/oauth/callback');
    const page = await fetch(`http://127.0.0.1:${app.opsPort}${callback.pathname}${callback.search}`);
    expect(page.status).toBe(200);

    await botSays('Signed in to the MCP server "remote"');
    expect(app.mcp?.connection('remote')?.state).toBe('connected');
    const dir = join(world?.root as string, 'data', 'mcp-oauth');
    const [sealed] = await Promise.all((await readdir(dir)).map((f) => readFile(join(dir, f), 'utf8')));
    expect(sealed).toMatch(/^v1:/);
    expect(sealed).not.toContain(server?.provider.issued[0]);
    expect(app.lines.join('\n')).not.toContain(server?.provider.issued[0]);
    expect(app.lines.join('\n')).not.toContain(key);
  });

  it('says what to set when there is no SWITCHBOARD_SECRET_KEY', async () => {
    await startWith({});
    world?.telegram.pushUpdate(messageUpdate({ chatId: 11, user: ANN }, '/mcp login remote'));
    expect(await botSays('SWITCHBOARD_SECRET_KEY')).toMatch(/openssl rand -base64 32/);
  });
});
