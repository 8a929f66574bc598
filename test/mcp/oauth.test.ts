/**
 * Signing the bot in to an HTTP MCP server that needs OAuth, through the
 * bot: the server first shows "sign-in needed" with the command; `/mcp login`
 * (admins, private chats only) answers with the link; following it like a
 * browser reaches the authorization server (the SDK's own, auto-approving),
 * which sends it back to the bot's callback; the code is exchanged, the
 * server connects and its tool runs. The token is refreshed ahead of its
 * expiry and on a 401, the record on disk holds no token text, and
 * `/mcp logout` forgets it.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { systemClock, VirtualClock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import { fileCredentialStore } from '../../src/mcp/oauth/credential-store.js';
import { McpOAuth } from '../../src/mcp/oauth/login.js';
import { createSecretBox } from '../../src/mcp/oauth/secret-box.js';
import { McpSignIns } from '../../src/mcp/oauth/sign-ins.js';
import { type OAuthMcpServer, startOAuthMcpServer } from '../fixtures/mcp/oauth-server.js';
import { useCleanups } from '../helpers/cleanups.js';
import { closingMcpWorlds } from './helpers.js';

const startMcpWorld = closingMcpWorlds();
const cleanups = useCleanups();

const ADMIN = { id: '42', name: 'Ada' };
const DM = 'telegram:42';

/** A protected server, the bot's sign-in with its callback port, and a bot with the server. */
async function signInWorld() {
  const server: OAuthMcpServer = await startOAuthMcpServer();
  cleanups.push(() => server.close());
  const dir = await mkdtemp(join(tmpdir(), 'switchboard-oauth-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  // The token's expiry is judged on this clock: advancing it makes the token due for refresh.
  const clock = new VirtualClock(Date.now());
  let oauth: McpOAuth | undefined;
  const oauthLogs: string[] = [];
  const callback = createServer((req, res) => {
    if (!oauth?.handle(req, res)) res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => callback.close(() => resolve())));
  oauth = new McpOAuth({
    signIns: new McpSignIns(fileCredentialStore(dir), createSecretBox(randomBytes(32))),
    servers: [
      { name: 'remote', url: server.url },
      { name: 'open', url: server.openUrl },
    ],
    publicUrl: `http://127.0.0.1:${(callback.address() as AddressInfo).port}`,
    clock,
    logger: createLogger({
      level: 'debug',
      destination: { write: (line: string) => oauthLogs.push(line) } as never,
    }),
  });
  const world = await startMcpWorld(
    { remote: { type: 'http', url: server.url }, open: { type: 'http', url: server.openUrl } },
    {
      mcp: { oauth },
      harness: {
        platforms: ['telegram'],
        admins: ['telegram:42'],
        allowedUsers: ['telegram:42', 'telegram:7'],
      },
    },
  );
  // The one private chat, as a platform's adapter declares its direct messages (`privateChat`).
  const telegram = world.h.adapters.telegram;
  if (!telegram) throw new Error('no telegram adapter');
  const declared = telegram.capabilities(DM);
  telegram.setCapabilities((chat) => ({ ...declared, privateChat: chat === DM }));
  const whoami = async () => {
    const tool = world.mcp.tools().find((t) => t.name === 'mcp__remote__whoami');
    if (!tool) throw new Error('whoami is not offered');
    return tool.run({}, { cwd: dir, signal: AbortSignal.timeout(10_000), env: {}, clock: systemClock });
  };
  const sealedFiles = async () =>
    Promise.all((await readdir(dir)).map((name) => readFile(join(dir, name), 'utf8')));
  return { server, dir, clock, oauth, world, whoami, sealedFiles, oauthLogs };
}

describe('MCP sign-in (OAuth)', () => {
  it('signs in through /mcp login and the callback, refreshes the token, keeps it sealed, and logs out', async () => {
    const { server, clock, world, whoami, sealedFiles, oauthLogs } = await signInWorld();
    const { h } = world;
    expect(world.mcp.connection('remote')?.state).toBe('down');
    expect(await h.ask('tools', '', { chat: DM, user: ADMIN })).toContain(
      'sign-in needed: an admin runs /mcp login remote',
    );

    expect(await h.ask('status', '', { chat: DM, user: ADMIN })).toContain(
      'sign-in needed: an admin runs /mcp login remote',
    );
    const answer = await h.ask('mcp', 'login remote', { chat: DM, user: ADMIN });
    expect(answer).toContain('Open this link to sign the bot in to "remote"');
    const link = answer.split('\n').at(-1) as string;
    expect(new URL(link).searchParams.get('code_challenge_method')).toBe('S256');

    // The browser: the authorization server approves and redirects to the bot's callback.
    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Signed in to "remote"');
    await h.until(() => world.mcp.connection('remote')?.state === 'connected', 'remote connected');
    expect(await whoami()).toMatchObject({ content: expect.stringContaining('signed in as client') });
    const first = server.provider.issued[0] as string;
    expect(server.accepted.at(-1)).toBe(first);

    // Sealed at rest: no token, no client secret, no field name in clear.
    const files = await sealedFiles();
    expect(files).toHaveLength(1);
    for (const text of files) {
      expect(text).toMatch(/^v1:/);
      expect(text).not.toContain(first);
      expect(text).not.toContain('access_token');
    }

    // Due within a minute of its expiry: refreshed before it is sent.
    clock.advance(3_600_000 - 30_000);
    await whoami();
    expect(server.provider.grants).toEqual(['authorization_code', 'refresh_token']);
    const second = server.provider.issued[1] as string;
    expect(server.accepted.at(-1)).toBe(second);

    // Revoked by the server: the 401 makes the SDK refresh, and the refreshed token is kept.
    server.revokeAccessTokens();
    expect(await whoami()).toMatchObject({ content: expect.stringContaining('signed in as client') });
    expect(server.provider.grants).toEqual(['authorization_code', 'refresh_token', 'refresh_token']);
    const third = server.provider.issued[2] as string;
    expect(server.accepted.at(-1)).toBe(third);
    for (const text of await sealedFiles()) expect(text).not.toContain(third);

    // Never logged, by the sign-in or by the MCP client.
    const log = [...oauthLogs, ...world.logs].join('\n');
    expect(log).toContain('Signed in to MCP server');
    for (const token of server.provider.issued) expect(log).not.toContain(token);

    expect(await h.ask('mcp', 'logout remote', { chat: DM, user: ADMIN })).toContain(
      'Signed out of "remote"',
    );
    expect(await sealedFiles()).toEqual([]);
    // Its next call is refused, and the server shows as needing sign-in again.
    await expect(whoami()).rejects.toThrow(/needs a new sign-in \(an admin runs \/mcp login remote\)/);
    expect(world.mcp.connection('remote')?.problem).toBe('sign-in needed: an admin runs /mcp login remote');
    expect(await h.ask('mcp', 'logout remote', { chat: DM, user: ADMIN })).toContain('was not signed in');
  });

  it('refuses /mcp login in a group, to a non-admin, for a stdio or unknown server, and an unknown callback', async () => {
    const { world, oauth } = await signInWorld();
    const { h } = world;
    expect(await h.ask('mcp', 'login remote', { chat: 'telegram:-1001', user: ADMIN })).toMatch(
      /works only in a private chat with the bot or in the terminal/,
    );
    expect(await h.ask('mcp', 'login remote', { chat: 'telegram:7', user: { id: '7', name: 'Bo' } })).toBe(
      'Only an admin can use /mcp login.',
    );
    expect(await h.ask('mcp', 'login open', { chat: DM, user: ADMIN })).toBe(
      '"open" lets the bot in without a new sign-in.',
    );
    expect(await h.ask('mcp', 'login nowhere', { chat: DM, user: ADMIN })).toMatch(
      /There is no MCP server "nowhere"/,
    );
    await expect(oauth.finish(new URLSearchParams({ code: 'x', state: 'forged' }))).rejects.toThrow(
      /not one the bot is waiting for/,
    );
  });
});
