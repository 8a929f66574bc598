/**
 * MCP sign-ins in PostgreSQL, shared by replicas: one replica signs in to a
 * protected server (the link followed like a browser, back to its callback),
 * the other connects to the server with the same token, read from the
 * `mcp_oauth_credentials` table, where the row holds only sealed text.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import { startMcpServers } from '../../src/mcp/index.js';
import { postgresCredentialStore } from '../../src/mcp/oauth/credential-store-postgres.js';
import { McpOAuth } from '../../src/mcp/oauth/login.js';
import { createSecretBox } from '../../src/mcp/oauth/secret-box.js';
import { McpSignIns } from '../../src/mcp/oauth/sign-ins.js';
import { migratePostgres } from '../../src/store/postgres/index.js';
import { startOAuthMcpServer } from '../fixtures/mcp/oauth-server.js';
import { useCleanups } from '../helpers/cleanups.js';
import { testDatabaseUrl, testSchemas } from './database.js';

const url = testDatabaseUrl();
const schemas = url ? testSchemas(url) : undefined;
afterAll(() => schemas?.cleanup());
const cleanups = useCleanups();

describe.skipIf(!schemas)('MCP sign-ins in PostgreSQL', () => {
  it('one replica signs in, the other connects with the same sealed token', async () => {
    if (!schemas) throw new Error('no database');
    const schema = schemas.name();
    const server = await startOAuthMcpServer();
    cleanups.push(() => server.close());
    const key = randomBytes(32);
    /** One replica: its own pool, its own callback port, the shared schema and key. */
    const replica = async () => {
      const pool = schemas.pool();
      const ready = () => migratePostgres(pool, { schema }).then(() => undefined);
      let oauth: McpOAuth | undefined;
      const callback = createServer((req, res) => {
        if (!oauth?.handle(req, res)) res.writeHead(404).end();
      });
      await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
      cleanups.push(() => new Promise<void>((resolve) => callback.close(() => resolve())));
      oauth = new McpOAuth({
        signIns: new McpSignIns(postgresCredentialStore(pool, schema, ready), createSecretBox(key)),
        servers: [{ name: 'remote', url: server.url }],
        publicUrl: `http://127.0.0.1:${(callback.address() as AddressInfo).port}`,
        clock: systemClock,
        logger: silentLogger,
      });
      const mcp = await startMcpServers({
        servers: [
          { name: 'remote', transport: { type: 'http', url: server.url, headers: {} }, toolPermissions: {} },
        ],
        baseEnv: {},
        clock: systemClock,
        logger: silentLogger,
        oauth,
      });
      cleanups.push(() => mcp.close());
      return { pool, mcp };
    };
    const a = await replica();
    const b = await replica();
    expect(b.mcp.connection('remote')?.problem).toBe('sign-in needed: an admin runs /mcp login remote');

    const answer = (await a.mcp.signIn?.('remote', 'console:operator')) ?? '';
    const page = await fetch(answer.split('\n').at(-1) as string);
    expect(await page.text()).toContain('Signed in to "remote"');
    expect(a.mcp.connection('remote')?.state).toBe('connected');

    // The other replica, at its next attempt (here: at once), uses the token the first one saved.
    await b.mcp.connection('remote')?.reconnect();
    expect(b.mcp.connection('remote')?.state).toBe('connected');
    expect(server.accepted.at(-1)).toBe(server.provider.issued[0]);

    const { rows } = await a.pool.query<{ server: string; sealed: string }>(
      `SELECT server, sealed FROM "${schema}".mcp_oauth_credentials`,
    );
    expect(rows.map((r) => r.server)).toEqual(['remote']);
    expect(rows[0]?.sealed).toMatch(/^v1:/);
    expect(rows[0]?.sealed).not.toContain(server.provider.issued[0]);

    expect(await b.mcp.signOut?.('remote')).toContain('Signed out of "remote"');
    const after = await a.pool.query(`SELECT 1 FROM "${schema}".mcp_oauth_credentials`);
    expect(after.rowCount).toBe(0);
  });
});
