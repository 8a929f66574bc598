/**
 * Schedules shared by two replicas on a real PostgreSQL: the schedule store's
 * tables, pg-boss's job tables, the chat lease and the control bus in one
 * database, each replica a real bot core against the fake Messages API.
 * Each run must happen on exactly one replica.
 */
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock.js';
import { createPostgresChatLease, createPostgresControlBus } from '../../src/cluster/index.js';
import { PgBossTrigger } from '../../src/schedule/pgboss-trigger.js';
import { createPostgresScheduleStore } from '../../src/schedule/postgres-store.js';
import { createPostgresStores } from '../../src/store/postgres/index.js';
import { type BotHarness, startBotHarness } from '../helpers/bot-harness.js';
import { SKIP_REASON, testDatabaseUrl, testSchemas } from '../store-postgres/database.js';

const url = testDatabaseUrl();
const schemas = url ? testSchemas(url) : undefined;
const START = Date.parse('2026-01-01T00:00:00Z');
const cleanups: Array<() => Promise<unknown>> = [];
const jobSchemas: string[] = [];

afterEach(async () => {
  for (const close of cleanups.splice(0).reverse()) await close();
});

afterAll(async () => {
  if (url && jobSchemas.length) {
    const admin = new pg.Pool({ connectionString: url, max: 1 });
    for (const s of jobSchemas) await admin.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
    await admin.end();
  }
  await schemas?.cleanup();
});

/** One replica on `schema`: stores, lease, bus, schedule store and pg-boss trigger of its own. */
async function replica(schema: string, first?: BotHarness): Promise<BotHarness> {
  const stores = createPostgresStores({ connectionString: url as string, schema });
  await stores.migrate();
  const clock = new VirtualClock(START);
  const lease = createPostgresChatLease({ pool: stores.pool, schema, clock });
  const bus = createPostgresControlBus({ pool: stores.pool, schema });
  const trigger = new PgBossTrigger({
    pool: stores.pool,
    schema: `${schema}_jobs`,
    clock,
    logger: (await import('../../src/logger.js')).silentLogger,
    pollingIntervalSeconds: 0.5,
  });
  const h = await startBotHarness({
    clock,
    sessionStore: stores.sessionStore,
    stateStore: stores.stateStore,
    cluster: { lease, bus, leaseTtlMs: 5_000 },
    schedules: {
      store: createPostgresScheduleStore({ pool: stores.pool, schema, ready: () => stores.migrate() }),
      trigger,
    },
    ...(first ? { fakeAnthropic: first.fakeAnthropic } : {}),
  });
  cleanups.push(async () => {
    await h.close();
    await Promise.allSettled([bus.close(), lease.close()]);
    await stores.close();
  });
  return h;
}

const runs = (h: BotHarness) => h.texts().filter((t) => t.startsWith('⏰ Scheduled:')).length;

describe.skipIf(!url)('schedules on PostgreSQL with two replicas', () => {
  it('each run of a schedule fires on exactly one replica', async () => {
    const schema = schemas?.name() as string;
    jobSchemas.push(`${schema}_jobs`);
    const a = await replica(schema);
    const b = await replica(schema, a);
    const answer = await a.ask('schedule', 'every 1m check the build');
    expect(answer).toMatch(/^Scheduled [0-9a-f]{6} \(every 1m\); next run 2026-01-01 00:01 UTC/);
    // Both replicas' clocks move together, as real ones would.
    const both = async () => {
      await b.clock.advance(a.clock.now() - b.clock.now());
      return runs(a) + runs(b);
    };
    await a.until(async () => (await both()) >= 3, 'three runs', 250);
    await a.settle();
    await b.settle();
    expect(runs(a) + runs(b)).toBe(3);
    expect(a.fakeAnthropic.requests).toHaveLength(3);
    // The same schedule, seen from either replica.
    expect(await b.ask('schedules')).toMatch(
      /next 2026-01-01 00:04 UTC \(every 1m\) by Alice: check the build/,
    );
  });
});

describe.skipIf(url)('schedules on PostgreSQL', () => {
  it.skip(SKIP_REASON, () => {});
});
