/**
 * `switchboard/postgres`: everything several replicas share through
 * PostgreSQL — the session and bot-state stores, the per-chat lease and the
 * control bus, and the schedules (their table and the pg-boss trigger that
 * fires each run on one replica). A separate entry so single-process users
 * never load it.
 *
 * @example
 * import { createPostgresChatLease, createPostgresControlBus, createPostgresStores } from 'switchboard/postgres';
 *
 * const stores = createPostgresStores({ connectionString: process.env.SWITCHBOARD_DATABASE_URL! });
 * await stores.migrate();
 * const lease = createPostgresChatLease({ pool: stores.pool, schema: stores.schema });
 * const bus = createPostgresControlBus({ pool: stores.pool, schema: stores.schema });
 * const bot = createBot({
 *   ...options,
 *   sessions: createSessionFactory({ ...sessionOptions, sessionStore: stores.sessionStore }),
 *   stores: { state: stores.stateStore },
 *   cluster: { lease, bus },
 * });
 */
export {
  createPostgresChatLease,
  createPostgresControlBus,
  type PostgresChatLeaseOptions,
  type PostgresClusterOptions,
  type PostgresControlBusOptions,
} from './cluster/index.js';
export { PgBossTrigger, type PgBossTriggerOptions } from './schedule/pgboss-trigger.js';
export { createPostgresScheduleStore, type PostgresScheduleStoreOptions } from './schedule/postgres-store.js';
export * from './store/postgres/index.js';
