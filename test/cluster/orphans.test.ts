/**
 * Crash notices with several replicas: only turns whose replica is gone (its
 * chat lease expired) are claimed; turns still running elsewhere are not.
 */
import { afterAll, afterEach, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock.js';
import {
  claimOrphanedTurns,
  createMemoryChatLease,
  createPostgresChatLease,
} from '../../src/cluster/index.js';
import type { ChatLease } from '../../src/cluster/types.js';
import { createMemoryBotStateStore } from '../../src/store/index.js';
import { createPostgresStores, type PostgresStores } from '../../src/store/postgres/index.js';
import { SKIP_REASON, testDatabaseUrl, testSchemas } from '../store-postgres/database.js';

const url = testDatabaseUrl();
const schemas = url ? testSchemas(url) : undefined;
const closers: Array<ChatLease | PostgresStores> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c.close()));
});
afterAll(() => schemas?.cleanup());

const turn = (chat: string) => ({
  chat,
  sessionId: `s-${chat.replace(':', '-')}`,
  startedAt: '2026-11-30T00:00:00.000Z',
});

it('claims every recorded turn on a single replica at start-up', async () => {
  const state = createMemoryBotStateStore();
  const leases = createMemoryChatLease({ clock: new VirtualClock(0) });
  closers.push(leases);
  await state.beginTurn(turn('telegram:1'));
  await state.beginTurn(turn('telegram:2'));
  const claimed = await claimOrphanedTurns(state, leases, { ttlMs: 30_000 });
  expect(claimed.map((c) => c.turn.chat).sort()).toEqual(['telegram:1', 'telegram:2']);
  expect(await claimOrphanedTurns(state, leases, { ttlMs: 30_000 })).toEqual([]);
});

it.skipIf(!schemas)(
  'claims a dead replica’s turn once its lease expires, and never a live replica’s',
  async () => {
    if (!schemas) return;
    const clock = new VirtualClock(0);
    const schema = await schemas.fresh();
    const open = (owner: string) => {
      const stores = createPostgresStores({ pool: schemas.pool(), schema, clock });
      const leases = createPostgresChatLease({ pool: stores.pool, schema, clock, owner });
      closers.push(leases, stores);
      return { state: stores.stateStore, leases };
    };
    const live = open('replica-live');
    const dead = open('replica-dead');
    const restarted = open('replica-new');

    const running = await live.leases.acquire('slack:C1:1', { ttlMs: 30_000, keepAlive: false });
    await live.state.beginTurn(turn('slack:C1:1'));
    await dead.leases.acquire('telegram:9', { ttlMs: 30_000, keepAlive: false });
    await dead.state.beginTurn(turn('telegram:9'));

    // Within the dead replica's ttl nothing may be claimed: both chats look busy.
    expect(await claimOrphanedTurns(restarted.state, restarted.leases, { ttlMs: 30_000 })).toEqual([]);
    await clock.advance(20_000);
    expect(await running?.renew()).toBe(true);
    await clock.advance(10_000);
    const claimed = await claimOrphanedTurns(restarted.state, restarted.leases, { ttlMs: 30_000 });
    expect(claimed.map((c) => c.turn)).toEqual([turn('telegram:9')]);
    // A second replica looking at the same moment finds it claimed already.
    expect(await claimOrphanedTurns(live.state, live.leases, { ttlMs: 30_000 })).toEqual([]);
  },
);

if (!schemas) it.skip(SKIP_REASON, () => undefined);
