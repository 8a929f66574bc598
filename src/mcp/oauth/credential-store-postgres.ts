/**
 * MCP sign-in records in PostgreSQL, shared by every replica: one row of
 * `mcp_oauth_credentials` per server (the migration "MCP OAuth sign-ins").
 * A file of its own so the file-store path never loads the driver.
 */
import { type PgPool, qualified, validateSchema } from '../../store/postgres/db.js';
import type { McpCredentialStore } from './credential-store.js';

/**
 * Records as rows of `mcp_oauth_credentials` in `schema` (made by the
 * migration "MCP OAuth sign-ins"); `ready` is the store's migration, awaited
 * before the first query.
 */
export function postgresCredentialStore(
  pool: PgPool,
  schema: string,
  ready: () => Promise<void>,
): McpCredentialStore {
  const table = qualified(validateSchema(schema), 'mcp_oauth_credentials');
  return {
    async get(server) {
      await ready();
      const { rows } = await pool.query<{ sealed: string }>(`SELECT sealed FROM ${table} WHERE server = $1`, [
        server,
      ]);
      return rows[0]?.sealed;
    },
    async set(server, sealed) {
      await ready();
      await pool.query(
        `INSERT INTO ${table} (server, sealed) VALUES ($1, $2)
         ON CONFLICT (server) DO UPDATE SET sealed = EXCLUDED.sealed, updated_at = now()`,
        [server, sealed],
      );
    },
    async delete(server) {
      await ready();
      await pool.query(`DELETE FROM ${table} WHERE server = $1`, [server]);
    },
  };
}
