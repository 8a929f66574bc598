/**
 * The real PostgreSQL server the PostgreSQL tests run against, from
 * SWITCHBOARD_TEST_DATABASE_URL (scripts/ci-postgres.sh prints it). Each test
 * gets schemas of its own, dropped when the file ends, so runs never collide.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migratePostgres } from '../../src/store/postgres/migrations.js';

/** The URL, or undefined when the tests must be skipped. Throws under CI: there they must run. */
export function testDatabaseUrl(): string | undefined {
  const url = process.env.SWITCHBOARD_TEST_DATABASE_URL;
  if (url) return url;
  if (process.env.CI) {
    throw new Error(
      'SWITCHBOARD_TEST_DATABASE_URL is not set, and CI is: run scripts/ci-postgres.sh before the tests and export the line it prints.',
    );
  }
  return undefined;
}

/** The test title shown when the database tests are skipped, saying how to run them. */
export const SKIP_REASON =
  'PostgreSQL tests skipped: run `scripts/ci-postgres.sh` (as root; it installs and starts a loopback server) and export the SWITCHBOARD_TEST_DATABASE_URL=... line it prints';

/**
 * Makes fresh schema names and pools for one test file; `cleanup()` (in
 * afterAll) ends the pools and drops every schema made.
 */
export function testSchemas(url: string) {
  const prefix = `sbt_${randomBytes(4).toString('hex')}`;
  const pools: pg.Pool[] = [];
  const schemas: string[] = [];
  let n = 0;
  let shared: Promise<string> | undefined;
  let admin: pg.Pool | undefined;
  const adminPool = () => {
    admin ??= new pg.Pool({ connectionString: url, max: 1 });
    return admin;
  };
  return {
    /** A schema name no one uses yet (not created: the store's migrations create it). */
    name(): string {
      const schema = `${prefix}_${++n}`;
      schemas.push(schema);
      return schema;
    },
    /**
     * The file's own migrated schema, emptied on every call: migrating costs
     * a few hundred milliseconds, emptying a few.
     */
    async fresh(): Promise<string> {
      shared ??= (async () => {
        const schema = this.name();
        await migratePostgres(adminPool(), { schema });
        return schema;
      })();
      const schema = await shared;
      const { rows } = await adminPool().query<{ name: string }>(
        `SELECT table_name AS name FROM information_schema.tables
         WHERE table_schema = $1 AND table_name <> 'schema_migrations'`,
        [schema],
      );
      for (const { name } of rows) await adminPool().query(`DELETE FROM "${schema}"."${name}"`);
      return schema;
    },
    /** A pool of its own, as another replica would have. */
    pool(max = 4): pg.Pool {
      const pool = new pg.Pool({ connectionString: url, max });
      pool.on('error', () => undefined);
      pools.push(pool);
      return pool;
    },
    async cleanup(): Promise<void> {
      await Promise.all(pools.splice(0).map((pool) => pool.end().catch(() => undefined)));
      const db = adminPool();
      try {
        for (const schema of schemas.splice(0)) await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await db.end();
        admin = undefined;
        shared = undefined;
      }
    },
  };
}
