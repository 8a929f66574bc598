/**
 * The connection the PostgreSQL cluster primitives share with the store:
 * the same pool options, schema and migrations (their tables are part of the
 * store's schema).
 */
import { type Logger, silentLogger } from '../logger.js';
import {
  DEFAULT_SCHEMA,
  once,
  openPool,
  type PgPool,
  type PostgresConnection,
  validateSchema,
} from '../store/postgres/db.js';
import { migratePostgres } from '../store/postgres/migrations.js';

/** Connection options of the PostgreSQL cluster primitives. */
export type PostgresClusterOptions = PostgresConnection & {
  /** Schema holding the tables (default `public`); the same as the store's. */
  schema?: string;
  logger?: Logger;
};

/** An opened connection: the pool, whether we close it, the schema and a memoized migration. */
export interface ClusterDb {
  pool: PgPool;
  owned: boolean;
  schema: string;
  logger: Logger;
  /** Resolves once the schema is migrated. */
  ready: () => Promise<void>;
  /** `"schema"."table"`. */
  t: (table: string) => string;
}

/** Opens (or adopts) the pool and prepares migrations. */
export function openClusterDb(options: PostgresClusterOptions): ClusterDb {
  const schema = validateSchema(options.schema ?? DEFAULT_SCHEMA);
  const logger = options.logger ?? silentLogger;
  const { pool, owned } = openPool(options, logger);
  return {
    pool,
    owned,
    schema,
    logger,
    ready: once(async () => {
      await migratePostgres(pool, { schema, logger });
    }),
    t: (table) => `"${schema}"."${table}"`,
  };
}
