/**
 * The PostgreSQL store: sessions and the bot's state in one database that
 * several replicas share (`SWITCHBOARD_DATABASE_URL=postgres://...`).
 */
import type { Clock } from '../../clock.js';
import { type Logger, silentLogger } from '../../logger.js';
import type { ControlsStore } from '../controls.js';
import type { BotStateStore, SessionStore } from '../types.js';
import { createPostgresControlsStore } from './controls-store.js';
import {
  DEFAULT_SCHEMA,
  once,
  openPool,
  type PgPool,
  type PostgresConnection,
  validateSchema,
} from './db.js';
import { migratePostgres } from './migrations.js';
import { PostgresSessionStore } from './session-store.js';
import { createPostgresBotStateStore } from './state-store.js';

export { createPostgresControlsStore, type PostgresControlsStoreOptions } from './controls-store.js';
export {
  DEFAULT_SCHEMA,
  type PgClient,
  type PgPool,
  type PostgresConnection,
  qualified,
  validateSchema,
} from './db.js';
export { MIGRATIONS, type MigrateOptions, type Migration, migratePostgres } from './migrations.js';
export { PostgresSessionStore, type PostgresSessionStoreOptions } from './session-store.js';
export { createPostgresBotStateStore, type PostgresBotStateStoreOptions } from './state-store.js';

/** Options of {@link createPostgresStores}: a connection plus where and how. */
export type PostgresStoresOptions = PostgresConnection & {
  logger?: Logger;
  /** Schema holding the tables (default `public`); created when missing. */
  schema?: string;
  /** Time for delivery pruning and quarantine names. */
  clock?: Clock;
  /** How long a delivery id is remembered (default 24 hours). */
  deliveryRetentionMs?: number;
};

/** What {@link createPostgresStores} returns. */
export interface PostgresStores {
  sessionStore: SessionStore;
  stateStore: BotStateStore;
  /** Spend, budget extensions and rules, shared by every replica. */
  controlsStore: ControlsStore;
  /** The pool in use, to share with the cluster primitives (`createPostgresChatLease`, ...). */
  pool: PgPool;
  schema: string;
  /**
   * Applies pending schema migrations (also done before the first query).
   * Call it at start-up so a wrong URL or missing rights fail at once.
   */
  migrate(): Promise<void>;
  /**
   * Waits for pending writes, then closes the pool if this function opened it.
   * Close a lease or control bus sharing the pool first: the pool waits for
   * the connection the bus listens on.
   */
  close(): Promise<void>;
}

/**
 * Both stores over one PostgreSQL database.
 *
 * @example
 * const pg = createPostgresStores({ connectionString: process.env.SWITCHBOARD_DATABASE_URL!, logger });
 * await pg.migrate();
 * const sessions = createSessionFactory({ ...sessionOptions, sessionStore: pg.sessionStore });
 * const bot = createBot({ ...options, sessions, stores: { state: pg.stateStore } });
 * // on shutdown: await pg.close();
 *
 * @throws SwitchboardError `CONFIG_INVALID` for a schema name that is not a plain identifier.
 */
export function createPostgresStores(options: PostgresStoresOptions): PostgresStores {
  const schema = validateSchema(options.schema ?? DEFAULT_SCHEMA);
  const logger = options.logger ?? silentLogger;
  const { pool, owned } = openPool(options, logger);
  const ready = once(async () => {
    await migratePostgres(pool, { schema, logger });
  });
  const clock = options.clock === undefined ? {} : { clock: options.clock };
  const sessionStore = new PostgresSessionStore({ pool, schema, ready, logger, ...clock });
  const stateStore = createPostgresBotStateStore({
    pool,
    schema,
    ready,
    logger,
    ...clock,
    ...(options.deliveryRetentionMs === undefined
      ? {}
      : { deliveryRetentionMs: options.deliveryRetentionMs }),
  });
  const controlsStore = createPostgresControlsStore({ pool, schema, ready, logger });
  let closing: Promise<void> | undefined;
  return {
    sessionStore,
    stateStore,
    controlsStore,
    pool,
    schema,
    migrate: ready,
    close() {
      closing ??= (async () => {
        await Promise.all([sessionStore.flush(), stateStore.flush(), controlsStore.flush()]);
        if (owned) await pool.end();
      })();
      return closing;
    },
  };
}
