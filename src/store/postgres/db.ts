/**
 * What every PostgreSQL piece shares: the pool, the schema its tables live
 * in, transactions, and turning driver errors into SwitchboardErrors that say
 * how to fix them.
 */
import pg from 'pg';
import { SwitchboardError } from '../../errors.js';
import type { Logger } from '../../logger.js';

/** The pool type the PostgreSQL pieces accept (a `pg` Pool). */
export type PgPool = pg.Pool;
/** A client checked out of the pool. */
export type PgClient = pg.PoolClient;

/** Where to connect: a URL (the pool is then created and closed by us) or a pool the caller owns. */
export type PostgresConnection =
  | { connectionString: string; pool?: never }
  | { pool: PgPool; connectionString?: never };

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,47}$/;

/** The default schema: where `CREATE TABLE` goes on a fresh database. */
export const DEFAULT_SCHEMA = 'public';

/**
 * Checks a schema name. Names are also quoted in SQL, but only plain
 * lower-case names are accepted so they fit a LISTEN channel name too.
 *
 * @throws SwitchboardError `CONFIG_INVALID` for anything else.
 */
export function validateSchema(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) {
    throw new SwitchboardError(
      'CONFIG_INVALID',
      `PostgreSQL schema ${JSON.stringify(schema)} is not valid: use 1 to 48 lower-case letters, digits or "_", starting with a letter or "_".`,
      { detail: { field: 'schema' } },
    );
  }
  return schema;
}

/** `"schema"."table"`, for a schema checked by {@link validateSchema}. */
export function qualified(schema: string, table: string): string {
  return `"${schema}"."${table}"`;
}

/** The pool to use and whether closing it is ours to do. */
export function openPool(connection: PostgresConnection, logger: Logger): { pool: PgPool; owned: boolean } {
  if (connection.pool) return { pool: connection.pool, owned: false };
  const pool = new pg.Pool({ connectionString: connection.connectionString, max: 10 });
  // An idle client losing its connection must be logged, not crash the process.
  pool.on('error', (err) => logger.warn({ err: describeDbError(err) }, 'idle PostgreSQL connection failed'));
  return { pool, owned: true };
}

/** Runs `body` in a transaction on one client; rolls back when it throws. */
export async function inTransaction<T>(
  pool: PgPool,
  body: (client: PgClient) => Promise<T>,
  begin = 'BEGIN',
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query(begin);
    const result = await body(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    try {
      await client.query('ROLLBACK');
    } catch (rollbackError) {
      // A connection that cannot roll back must not go back into the pool.
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    }
    throw err;
  } finally {
    client.release(broken);
  }
}

/** The SQLSTATE (or socket code) of a driver error, if it has one. */
export function dbErrorCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : undefined;
}

/** A short description of a driver error for logs (no connection string, which may hold a password). */
export function describeDbError(err: unknown): string {
  const code = dbErrorCode(err);
  const message = err instanceof Error ? err.message : String(err);
  return code ? `${message} (${code})` : message;
}

/**
 * A failed write as `STORE_WRITE_FAILED`, logged: a save that fails must be
 * seen. SwitchboardErrors raised on purpose (corrupt, missing) pass through.
 */
export function writeFailed(logger: Logger, err: unknown, what: string, schema: string): SwitchboardError {
  if (err instanceof SwitchboardError) return err;
  const code = dbErrorCode(err);
  logger.error({ err: describeDbError(err), schema }, `store write failed: ${what}`);
  return new SwitchboardError(
    'STORE_WRITE_FAILED',
    `Could not save ${what} to PostgreSQL schema "${schema}"${code ? ` (${code})` : ''}: check that the server is reachable (SWITCHBOARD_DATABASE_URL) and the role may write to that schema.`,
    { cause: err, detail: { schema, ...(code ? { sqlstate: code } : {}) } },
  );
}

/** A failed read as `STORE_UNAVAILABLE`, logged. SwitchboardErrors pass through. */
export function readFailed(logger: Logger, err: unknown, what: string, schema: string): SwitchboardError {
  if (err instanceof SwitchboardError) return err;
  const code = dbErrorCode(err);
  logger.error({ err: describeDbError(err), schema }, `store read failed: ${what}`);
  return new SwitchboardError(
    'STORE_UNAVAILABLE',
    `Could not read ${what} from PostgreSQL schema "${schema}"${code ? ` (${code})` : ''}: check that the server is up and reachable (SWITCHBOARD_DATABASE_URL) and the role may read that schema.`,
    { cause: err, detail: { schema, ...(code ? { sqlstate: code } : {}) } },
  );
}

/** What {@link statementRunner} returns: `run` one statement, `flush` waits for those in flight. */
export interface StatementRunner {
  run<T>(kind: 'read' | 'write', what: string, body: () => Promise<T>): Promise<T>;
  flush(): Promise<void>;
}

/**
 * Runs each statement after `ready` (migrations), tracked so `flush()` can
 * wait for it, with failures turned into store errors that say what failed.
 */
export function statementRunner(ready: () => Promise<void>, logger: Logger, schema: string): StatementRunner {
  const pending = new Set<Promise<unknown>>();
  return {
    async run(kind, what, body) {
      await ready();
      const task = body();
      const tracked = task.then(
        () => undefined,
        () => undefined,
      );
      pending.add(tracked);
      void tracked.then(() => pending.delete(tracked));
      try {
        return await task;
      } catch (err) {
        throw kind === 'read'
          ? readFailed(logger, err, what, schema)
          : writeFailed(logger, err, what, schema);
      }
    },
    async flush() {
      while (pending.size > 0) await Promise.all([...pending]);
    },
  };
}

/**
 * Memoizes an async start-up step (migrations) so every caller waits for the
 * same run; a failed run is forgotten so the next call tries again.
 */
export function once(step: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => {
    running ??= step().catch((err: unknown) => {
      running = undefined;
      throw err;
    });
    return running;
  };
}
