/**
 * The team controls in PostgreSQL, shared by every replica: counters are
 * added to with one upsert (`value = value + excluded.value`), so two
 * replicas recording spend at once both count; a flag is claimed by whoever
 * inserts its row first.
 */
import { type Logger, silentLogger } from '../../logger.js';
import type { ControlsStore } from '../controls.js';
import { type PgPool, qualified, statementRunner } from './db.js';

/** Options of {@link createPostgresControlsStore}. */
export interface PostgresControlsStoreOptions {
  pool: PgPool;
  schema: string;
  /** Resolves once the schema is migrated; awaited before the first query. */
  ready: () => Promise<void>;
  logger?: Logger;
}

/** A {@link ControlsStore} over PostgreSQL; every call is one statement. */
export function createPostgresControlsStore(options: PostgresControlsStoreOptions): ControlsStore {
  const { pool, schema, ready } = options;
  const logger = options.logger ?? silentLogger;
  const t = (table: string) => qualified(schema, table);
  const { run, flush } = statementRunner(ready, logger, schema);

  return {
    add: (amounts) =>
      run('write', 'spend counters', async () => {
        const entries = Object.entries(amounts);
        if (entries.length === 0) return;
        await pool.query(
          `INSERT INTO ${t('team_counters')} (key, value)
           SELECT * FROM unnest($1::text[], $2::double precision[])
           ON CONFLICT (key) DO UPDATE SET value = ${t('team_counters')}.value + excluded.value`,
          [entries.map(([k]) => k), entries.map(([, v]) => v)],
        );
      }),
    read: (keys) =>
      run('read', 'spend counters', async () => {
        const { rows } = await pool.query<{ key: string; value: number }>(
          `SELECT key, value FROM ${t('team_counters')} WHERE key = ANY($1::text[])`,
          [[...keys]],
        );
        const out: Record<string, number> = Object.fromEntries(keys.map((k) => [k, 0]));
        for (const row of rows) out[row.key] = Number(row.value);
        return out;
      }),
    claim: (key) =>
      run('write', `the flag ${key}`, async () => {
        const result = await pool.query(
          `INSERT INTO ${t('team_flags')} (key) VALUES ($1) ON CONFLICT (key) DO NOTHING`,
          [key],
        );
        return result.rowCount === 1;
      }),
    getSetting: (key) =>
      run('read', `the setting ${key}`, async () => {
        const { rows } = await pool.query<{ value: unknown }>(
          `SELECT value FROM ${t('team_settings')} WHERE key = $1`,
          [key],
        );
        return rows[0]?.value;
      }),
    setSetting: (key, value) =>
      run('write', `the setting ${key}`, async () => {
        if (value === undefined) {
          await pool.query(`DELETE FROM ${t('team_settings')} WHERE key = $1`, [key]);
          return;
        }
        await pool.query(
          `INSERT INTO ${t('team_settings')} (key, value) VALUES ($1, $2::jsonb)
           ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
          [key, JSON.stringify(value)],
        );
      }),
    listSettings: (prefix) =>
      run('read', 'settings', async () => {
        const { rows } = await pool.query<{ key: string; value: unknown }>(
          `SELECT key, value FROM ${t('team_settings')} WHERE starts_with(key, $1) ORDER BY seq`,
          [prefix],
        );
        return rows.map((r) => [r.key, r.value] as [string, unknown]);
      }),
    flush,
  };
}
