/**
 * Primitives for running several bot replicas: one turn per chat at a time
 * ({@link ChatLease}) and control messages that reach the replica running a
 * chat's turn ({@link ControlBus}). In-process implementations serve a single
 * replica; the PostgreSQL ones share the store's database and schema.
 *
 * @example
 * const stores = createPostgresStores({ connectionString: url });
 * await stores.migrate();
 * const leases = createPostgresChatLease({ pool: stores.pool, schema: stores.schema });
 * const bus = createPostgresControlBus({ pool: stores.pool, schema: stores.schema });
 */
export {
  type ChatLeaseOptions,
  createChatLease,
  createMemoryChatLease,
  type LeaseBackend,
  replicaId,
} from './lease.js';
export { createMemoryControlBus, type MemoryControlBusOptions } from './memory-bus.js';
export { claimOrphanedTurns, type OrphanedTurn } from './orphans.js';
export { createPostgresControlBus, type PostgresControlBusOptions } from './postgres-bus.js';
export type { PostgresClusterOptions } from './postgres-common.js';
export { createPostgresChatLease, type PostgresChatLeaseOptions } from './postgres-lease.js';
export * from './types.js';
