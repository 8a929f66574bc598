/**
 * The ready bot's stores: lowdb files in the data directory for one process,
 * or PostgreSQL shared by replicas (with the per-chat lease and the control
 * bus on the same database), each with the readiness check `/readyz` runs.
 */
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config/index.js';
import type { ClusterOptions } from './bot/index.js';
import type { ScheduleOptions } from './bot/options.js';
import type { Clock } from './clock.js';
import type { Logger } from './logger.js';
import { fileCredentialStore, type McpCredentialStore } from './mcp/oauth/credential-store.js';
import { createFileScheduleStore } from './schedule/file-store.js';
import {
  type ControlsStore,
  createBotStateStore,
  createControlsStore,
  createUserSessionStore,
} from './store/index.js';
import type { BotStateStore, SessionStore } from './store/types.js';

/** Stores, and for replicas the lease and bus: PostgreSQL shared by replicas, or files for one process. */
export interface SharedState {
  sessionStore: SessionStore;
  stateStore: BotStateStore;
  /** Spend, budget extensions and chat caps (and stored rules). */
  controlsStore: ControlsStore;
  /** Where MCP sign-ins (sealed) are kept: beside the bot state, so every replica shares them. */
  mcpCredentials: McpCredentialStore;
  /** Only with PostgreSQL: one process on files shares nothing. */
  cluster?: Pick<ClusterOptions, 'lease' | 'bus'>;
  /** Where schedules live and, with replicas, what fires each run once among them. */
  schedules: Pick<ScheduleOptions, 'store' | 'trigger'>;
  /** Resolves to a reason when the stores cannot be reached, else undefined (for /readyz). */
  check(): Promise<string | undefined>;
  /** Bus and leases first (they use the pool), then the stores. */
  close(): Promise<void>;
}

export async function openSharedState(config: Config, logger: Logger, clock: Clock): Promise<SharedState> {
  if (!config.database) {
    return {
      sessionStore: createUserSessionStore(join(config.dataDir, 'sessions'), { logger }),
      stateStore: createBotStateStore(config.dataDir, { logger }),
      schedules: { store: createFileScheduleStore(config.dataDir, { logger, clock }) },
      controlsStore: createControlsStore(config.dataDir, { logger, clock }),
      mcpCredentials: fileCredentialStore(join(config.dataDir, 'mcp-oauth')),
      check: () => directoryWritable(config.dataDir),
      async close() {},
    };
  }
  // Loaded only when configured, so the file-store path never imports the driver.
  const { createPostgresStores } = await import('./store/postgres/index.js');
  const { createPostgresChatLease, createPostgresControlBus } = await import('./cluster/index.js');
  const { postgresCredentialStore } = await import('./mcp/oauth/credential-store-postgres.js');
  const pgLogger = logger.child({ component: 'postgres' });
  const stores = createPostgresStores({
    connectionString: config.database.url,
    logger: pgLogger,
    clock,
    ...(config.database.schema ? { schema: config.database.schema } : {}),
  });
  try {
    await stores.migrate();
  } catch (err) {
    await stores.close().catch(() => {});
    throw err;
  }
  const cluster = { pool: stores.pool, schema: stores.schema, logger: pgLogger };
  const lease = createPostgresChatLease({ ...cluster, clock });
  const bus = createPostgresControlBus({ ...cluster, clock });
  const { createPostgresScheduleStore } = await import('./schedule/postgres-store.js');
  const { PgBossTrigger } = await import('./schedule/pgboss-trigger.js');
  return {
    sessionStore: stores.sessionStore,
    stateStore: stores.stateStore,
    controlsStore: stores.controlsStore,
    mcpCredentials: postgresCredentialStore(stores.pool, stores.schema, stores.migrate),
    cluster: { lease, bus },
    schedules: {
      store: createPostgresScheduleStore({ ...cluster, ready: () => stores.migrate() }),
      trigger: new PgBossTrigger({
        pool: stores.pool,
        schema: `${stores.schema}_jobs`,
        clock,
        logger: pgLogger,
      }),
    },
    async check() {
      try {
        await stores.pool.query('SELECT 1');
        return undefined;
      } catch (err) {
        return `PostgreSQL does not answer (${err instanceof Error ? err.message : String(err)})`;
      }
    },
    async close() {
      await Promise.allSettled([bus.close(), lease.close()]);
      await stores.close();
    },
  };
}

/**
 * Undefined when the bot can write to `dir`, else why not. A real write (and
 * removal) of a probe file, not a permission check: root passes every
 * permission check, and a full disk or a read-only mount only shows on write.
 */
async function directoryWritable(dir: string): Promise<string | undefined> {
  const probe = join(dir, '.readyz-probe');
  try {
    await writeFile(probe, '', { mode: 0o600 });
    await rm(probe, { force: true });
    return undefined;
  } catch (err) {
    return `the data directory ${dir} cannot be written (${(err as NodeJS.ErrnoException).code ?? 'error'})`;
  }
}
