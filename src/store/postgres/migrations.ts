/**
 * Schema migrations, applied at start-up. Each runs in its own transaction
 * and is recorded as a row of `schema_migrations`; an advisory lock around the
 * whole run lets several replicas start at once without racing.
 */
import { SwitchboardError } from '../../errors.js';
import { type Logger, silentLogger } from '../../logger.js';
import { describeDbError, type PgClient, type PgPool, qualified, validateSchema } from './db.js';

/** One step of the schema; `sql` receives a function that qualifies table names. */
export interface Migration {
  version: number;
  name: string;
  sql: (t: (table: string) => string) => string;
}

/** Every migration, in order. Append new ones; never edit one that has shipped. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'sessions and bot state',
    sql: (t) => `
      CREATE TABLE ${t('sessions')} (
        id text PRIMARY KEY,
        meta jsonb NOT NULL,
        version integer,
        generation integer NOT NULL DEFAULT 0,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      -- json, not jsonb: a message may hold any text a tool printed, NUL included.
      CREATE TABLE ${t('session_messages')} (
        session_id text NOT NULL,
        generation integer NOT NULL,
        seq integer NOT NULL,
        message json NOT NULL,
        PRIMARY KEY (session_id, generation, seq)
      );
      CREATE TABLE ${t('session_quarantine')} (
        name text PRIMARY KEY,
        session_id text NOT NULL,
        quarantined_at timestamptz NOT NULL DEFAULT now(),
        meta jsonb,
        version integer,
        generation integer,
        messages json NOT NULL
      );
      CREATE TABLE ${t('chats')} (
        chat text PRIMARY KEY,
        binding jsonb NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE ${t('deliveries')} (
        id text PRIMARY KEY,
        seen_at bigint NOT NULL
      );
      CREATE INDEX ON ${t('deliveries')} (seen_at);
      CREATE TABLE ${t('active_turns')} (
        chat text PRIMARY KEY,
        turn jsonb NOT NULL,
        started_at timestamptz NOT NULL DEFAULT now()
      );`,
  },
  {
    version: 2,
    name: 'chat leases and control messages',
    sql: (t) => `
      CREATE TABLE ${t('chat_leases')} (
        chat text PRIMARY KEY,
        owner text NOT NULL,
        previous_owner text,
        token text NOT NULL,
        acquired_at bigint NOT NULL,
        expires_at bigint NOT NULL
      );
      CREATE TABLE ${t('control_messages')} (
        id bigserial PRIMARY KEY,
        chat text NOT NULL,
        origin text NOT NULL,
        body json NOT NULL,
        created_at bigint NOT NULL
      );
      CREATE INDEX ON ${t('control_messages')} (created_at);`,
  },
  {
    // The runs themselves are pg-boss jobs in a schema pg-boss owns (`<schema>_jobs`).
    version: 3,
    name: 'schedules and chat settings',
    sql: (t) => `
      CREATE TABLE ${t('schedules')} (
        id text PRIMARY KEY,
        chat text NOT NULL,
        next_run_at bigint NOT NULL,
        body jsonb NOT NULL
      );
      CREATE INDEX ON ${t('schedules')} (chat);
      CREATE TABLE ${t('chat_settings')} (
        chat text PRIMARY KEY,
        settings jsonb NOT NULL
      );`,
  },
  {
    version: 4,
    name: 'team controls: spend counters, once-flags and settings',
    sql: (t) => `
      CREATE TABLE ${t('team_counters')} (
        key text PRIMARY KEY,
        value double precision NOT NULL
      );
      CREATE TABLE ${t('team_flags')} (
        key text PRIMARY KEY,
        set_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE ${t('team_settings')} (
        key text PRIMARY KEY,
        value jsonb NOT NULL,
        seq bigserial
      );`,
  },
  {
    version: 5,
    name: 'MCP OAuth sign-ins',
    // One sealed (AES-256-GCM) record per MCP server: tokens, registered client, pending login.
    sql: (t) => `
      CREATE TABLE ${t('mcp_oauth_credentials')} (
        server text PRIMARY KEY,
        sealed text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      );`,
  },
];

/** Advisory lock class for migrations (two-key form; the second key is the schema's hash). */
const MIGRATION_LOCK_CLASS = 0x5357;

/** Options of {@link migratePostgres}. */
export interface MigrateOptions {
  schema?: string;
  logger?: Logger;
  /** The migrations to apply (tests); default {@link MIGRATIONS}. */
  migrations?: readonly Migration[];
}

/**
 * Brings `schema` up to the newest migration and returns the versions it
 * applied (none when the schema was already current).
 *
 * @throws SwitchboardError `STORE_UNAVAILABLE` when the database cannot be
 *   reached, a migration fails (it is rolled back), or the schema was migrated
 *   by a newer switchboard.
 */
export async function migratePostgres(pool: PgPool, options: MigrateOptions = {}): Promise<number[]> {
  const schema = validateSchema(options.schema ?? 'public');
  const logger = options.logger ?? silentLogger;
  const migrations = options.migrations ?? MIGRATIONS;
  const t = (table: string) => qualified(schema, table);
  const latest = migrations.at(-1)?.version ?? 0;
  let client: PgClient;
  try {
    client = await pool.connect();
  } catch (err) {
    throw unavailable(err, schema, 'connect');
  }
  const applied: number[] = [];
  let broken: Error | undefined;
  try {
    await client.query('SELECT pg_advisory_lock($1, hashtext($2))', [MIGRATION_LOCK_CLASS, schema]);
    try {
      const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
      if (exists.rowCount === 0) await client.query(`CREATE SCHEMA "${schema}"`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${t('schema_migrations')} (
           version integer PRIMARY KEY,
           name text NOT NULL,
           applied_at timestamptz NOT NULL DEFAULT now()
         )`,
      );
      const rows = await client.query<{ version: number }>(`SELECT version FROM ${t('schema_migrations')}`);
      const done = new Set(rows.rows.map((r) => r.version));
      const newest = Math.max(0, ...done);
      if (newest > latest) {
        throw new SwitchboardError(
          'STORE_UNAVAILABLE',
          `PostgreSQL schema "${schema}" is at version ${newest}, newer than this switchboard knows (${latest}): run the newer switchboard, or point this one at another schema.`,
          { detail: { schema, version: newest, known: latest } },
        );
      }
      for (const migration of migrations) {
        if (done.has(migration.version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(migration.sql(t));
          await client.query(`INSERT INTO ${t('schema_migrations')} (version, name) VALUES ($1, $2)`, [
            migration.version,
            migration.name,
          ]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK');
          throw unavailable(err, schema, `migration ${migration.version} (${migration.name})`);
        }
        applied.push(migration.version);
        logger.info({ schema, version: migration.version, name: migration.name }, 'database migrated');
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', [MIGRATION_LOCK_CLASS, schema]);
    }
  } catch (err) {
    // Whatever went wrong, this connection is not trusted back into the pool.
    broken = err instanceof Error ? err : new Error(String(err));
    throw unavailable(err, schema, 'migrations');
  } finally {
    client.release(broken);
  }
  return applied;
}

function unavailable(err: unknown, schema: string, what: string): SwitchboardError {
  if (err instanceof SwitchboardError) return err;
  return new SwitchboardError(
    'STORE_UNAVAILABLE',
    `PostgreSQL ${what} failed for schema "${schema}": ${describeDbError(err)}. Check that the server is up, SWITCHBOARD_DATABASE_URL is right and the role may create tables there.`,
    { cause: err, detail: { schema } },
  );
}
