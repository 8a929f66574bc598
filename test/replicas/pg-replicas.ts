/**
 * Replicas of the bot core in one test process: bot harnesses (real core,
 * sessions and provider against the fake Messages API) sharing one
 * PostgreSQL schema through the real PostgreSQL stores, chat lease and
 * control bus. Each replica's lease runs on a clock of its own, so a test
 * decides when a lease expires or is renewed.
 */
import type pg from 'pg';
import { afterEach } from 'vitest';
import { VirtualClock } from '../../src/clock.js';
import { createPostgresChatLease, createPostgresControlBus } from '../../src/cluster/index.js';
import type { ChatLease, ControlBus } from '../../src/cluster/types.js';
import { createPostgresStores, type PostgresStores } from '../../src/store/postgres/index.js';
import { type BotHarness, type HarnessOptions, startBotHarness } from '../helpers/bot-harness.js';

/** One replica: its harness, stores, lease and bus. */
export interface Replica {
  h: BotHarness;
  stores: PostgresStores;
  lease: ChatLease;
  bus: ControlBus;
  /** The clock of this replica's lease: expiry as this replica sees it, and keep-alive. */
  leaseClock: VirtualClock;
}

/** What {@link pgReplicas} needs to start a replica. */
export interface ReplicaSetup {
  /** Where the lease clock starts. */
  start: number;
  leaseTtlMs: number;
}

/**
 * A starter of replicas for one test file over the database at `url`;
 * every replica started is closed after each test.
 */
export function pgReplicas(url: string | undefined, setup: ReplicaSetup) {
  const open: Replica[] = [];
  afterEach(async () => {
    for (const r of open.splice(0).reverse()) {
      await r.h.close();
      await Promise.allSettled([r.bus.close(), r.lease.close()]);
      await r.stores.close();
    }
  });
  /**
   * A replica on `schema`, sharing the first one's fake Messages API; its
   * lease may use a pool of its own (`leasePool`), to be cut off alone.
   */
  return async function replica(
    schema: string,
    options: { first?: Replica; leasePool?: pg.Pool; harness?: HarnessOptions } = {},
  ): Promise<Replica> {
    const stores = createPostgresStores({ connectionString: url as string, schema });
    await stores.migrate();
    const leaseClock = new VirtualClock(setup.start);
    const lease = createPostgresChatLease({
      pool: options.leasePool ?? stores.pool,
      schema,
      clock: leaseClock,
    });
    const bus = createPostgresControlBus({ pool: stores.pool, schema });
    const h = await startBotHarness({
      sessionStore: stores.sessionStore,
      stateStore: stores.stateStore,
      controlsStore: stores.controlsStore,
      cluster: { lease, bus, leaseTtlMs: setup.leaseTtlMs },
      ...(options.first ? { fakeAnthropic: options.first.h.fakeAnthropic } : {}),
      ...options.harness,
    });
    const r = { h, stores, lease, bus, leaseClock };
    open.push(r);
    return r;
  };
}
