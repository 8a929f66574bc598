/**
 * Chat leases, in process and in PostgreSQL: one holder per chat, expiry
 * after the ttl, renewal, keep-alive on the clock, release.
 */
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { VirtualClock } from '../../src/clock.js';
import { createMemoryChatLease, createPostgresChatLease } from '../../src/cluster/index.js';
import type { ChatLease } from '../../src/cluster/types.js';
import { isErrorCode } from '../../src/errors.js';
import { SKIP_REASON, testDatabaseUrl, testSchemas } from '../store-postgres/database.js';

const url = testDatabaseUrl();
const schemas = url ? testSchemas(url) : undefined;
const opened: ChatLease[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((l) => l.close()));
});
afterAll(() => schemas?.cleanup());

/** Makes two contenders ("replicas") over one shared lease space, on `clock`. */
type Contenders = (clock: VirtualClock) => Promise<[ChatLease, ChatLease]>;

const kinds: Array<[string, Contenders | undefined]> = [
  [
    'in-process',
    async (clock) => {
      // One process: both contenders are callers of the same lease table.
      const leases = createMemoryChatLease({ clock, owner: 'solo' });
      opened.push(leases);
      return [leases, leases];
    },
  ],
  [
    'postgres',
    schemas &&
      (async (clock) => {
        const schema = await schemas.fresh();
        const a = createPostgresChatLease({ pool: schemas.pool(), schema, clock, owner: 'replica-a' });
        const b = createPostgresChatLease({ pool: schemas.pool(), schema, clock, owner: 'replica-b' });
        opened.push(a, b);
        return [a, b];
      }),
  ],
];

describe.each(kinds)('%s chat lease', (_kind, contenders) => {
  if (!contenders) {
    it.skip(SKIP_REASON, () => undefined);
    return;
  }

  it('lets exactly one of two contenders take each chat', async () => {
    const [a, b] = await contenders(new VirtualClock(1_000_000));
    const chats = Array.from({ length: 20 }, (_, i) => `telegram:${i}`);
    const results = await Promise.all(
      chats.flatMap((chat) => [
        a.acquire(chat, { ttlMs: 30_000, keepAlive: false }),
        b.acquire(chat, { ttlMs: 30_000, keepAlive: false }),
      ]),
    );
    for (let i = 0; i < chats.length; i++) {
      const pair = [results[2 * i], results[2 * i + 1]];
      expect(pair.filter((lease) => lease !== undefined)).toHaveLength(1);
    }
  });

  it('frees a lease nobody renews after its ttl, and tells the old holder it lost it', async () => {
    const clock = new VirtualClock(1_000_000);
    const [a, b] = await contenders(clock);
    const lease = await a.acquire('slack:C1:1.2', { ttlMs: 30_000, keepAlive: false });
    expect(lease).toMatchObject({ chat: 'slack:C1:1.2', owner: a.owner, expiresAt: 1_030_000 });
    await clock.advance(29_999);
    expect(await b.acquire('slack:C1:1.2', { ttlMs: 30_000, keepAlive: false })).toBeUndefined();
    await clock.advance(1);
    const taken = await b.acquire('slack:C1:1.2', { ttlMs: 30_000, keepAlive: false });
    expect(taken?.token).toBeDefined();
    expect(taken?.token).not.toBe(lease?.token);
    expect(await lease?.renew()).toBe(false);
    expect(lease?.signal.aborted).toBe(true);
    expect(isErrorCode(lease?.signal.reason, 'SESSION_BUSY')).toBe(true);
    // The old holder's release must not free the new holder's lease.
    await lease?.release();
    expect(await a.acquire('slack:C1:1.2', { ttlMs: 30_000, keepAlive: false })).toBeUndefined();
  });

  it('keeps a renewed lease past its first expiry', async () => {
    const clock = new VirtualClock(0);
    const [a, b] = await contenders(clock);
    const lease = await a.acquire('discord:9', { ttlMs: 30_000, keepAlive: false });
    await clock.advance(20_000);
    expect(await lease?.renew()).toBe(true);
    expect(lease?.expiresAt).toBe(50_000);
    await clock.advance(25_000);
    expect(await b.acquire('discord:9', { ttlMs: 30_000, keepAlive: false })).toBeUndefined();
    await clock.advance(5_000);
    expect(await b.acquire('discord:9', { ttlMs: 30_000, keepAlive: false })).toBeDefined();
  });

  it('renews by itself every third of the ttl while held, and stops when released', async () => {
    const clock = new VirtualClock(0);
    const [a, b] = await contenders(clock);
    const lease = await a.acquire('telegram:5', { ttlMs: 30_000 });
    await clock.advance(10_000);
    await vi.waitFor(() => expect(lease?.expiresAt).toBe(40_000));
    await clock.advance(10_000);
    await vi.waitFor(() => expect(lease?.expiresAt).toBe(50_000));
    await clock.advance(25_000);
    expect(await b.acquire('telegram:5', { ttlMs: 30_000, keepAlive: false })).toBeUndefined();
    await lease?.release();
    expect(clock.pending).toBe(0);
    expect(lease?.signal.aborted).toBe(false);
    expect(await b.acquire('telegram:5', { ttlMs: 30_000, keepAlive: false })).toBeDefined();
  });

  it('releases at once, and close() releases everything an instance holds', async () => {
    const clock = new VirtualClock(0);
    const [a, b] = await contenders(clock);
    const first = await a.acquire('c1', { ttlMs: 60_000 });
    await first?.release();
    await first?.release();
    expect(await b.acquire('c1', { ttlMs: 60_000, keepAlive: false })).toBeDefined();
    if (a !== b) {
      await a.acquire('c2', { ttlMs: 60_000 });
      await a.acquire('c3', { ttlMs: 60_000 });
      await a.close();
      expect(await b.acquire('c2', { ttlMs: 60_000, keepAlive: false })).toBeDefined();
      expect(await b.acquire('c3', { ttlMs: 60_000, keepAlive: false })).toBeDefined();
    }
  });

  it('tells a new holder who held the chat before, so it knows when cached state is stale', async () => {
    const clock = new VirtualClock(0);
    const [a, b] = await contenders(clock);
    const first = await a.acquire('telegram:3', { ttlMs: 30_000, keepAlive: false });
    expect(first?.previousOwner).toBeUndefined();
    await first?.release();
    const again = await a.acquire('telegram:3', { ttlMs: 30_000, keepAlive: false });
    expect(again?.previousOwner).toBe(a.owner);
    await clock.advance(30_000);
    const other = await b.acquire('telegram:3', { ttlMs: 30_000, keepAlive: false });
    expect(other?.previousOwner).toBe(a.owner);
    expect(other?.owner).toBe(b.owner);
  });

  it('hands a chat that was only looked at back under the name of the replica that last worked in it', async () => {
    const clock = new VirtualClock(0);
    const [a, b] = await contenders(clock);
    await (await b.acquire('telegram:4', { ttlMs: 30_000, keepAlive: false }))?.release();
    // A asks who runs the chat (or ends a cut turn's record) and changes nothing it caches.
    const look = await a.acquire('telegram:4', { ttlMs: 30_000, keepAlive: false, lookOnly: true });
    expect(look?.previousOwner).toBe(b.owner);
    await look?.release();
    const work = await a.acquire('telegram:4', { ttlMs: 30_000, keepAlive: false });
    expect(work?.previousOwner).toBe(b.owner);
    await work?.release();
    expect((await a.acquire('telegram:4', { ttlMs: 30_000, keepAlive: false }))?.previousOwner).toBe(a.owner);
  });

  it('refuses a ttl that is not a positive duration', async () => {
    const [a] = await contenders(new VirtualClock(0));
    for (const ttlMs of [0, -5, Number.NaN]) {
      await expect(a.acquire('c1', { ttlMs })).rejects.toSatisfy((err) => isErrorCode(err, 'CONFIG_INVALID'));
    }
  });
});

describe.skipIf(!schemas)('postgres chat lease across replicas', () => {
  it('lets another replica take a chat once a replica that lost its database stops renewing', async () => {
    if (!schemas) return;
    const clock = new VirtualClock(0);
    const schema = await schemas.fresh();
    const deadPool = schemas.pool();
    const a = createPostgresChatLease({ pool: deadPool, schema, clock, owner: 'replica-a' });
    const b = createPostgresChatLease({ pool: schemas.pool(), schema, clock, owner: 'replica-b' });
    opened.push(b);
    const lease = await a.acquire('telegram:77', { ttlMs: 30_000 });
    expect(lease).toBeDefined();
    await deadPool.end();
    // Keep-alive fails from now on: each failed renewal either sets the next try or, once
    // past the expiry, gives the lease up. Wait for each attempt to settle one way or the other.
    const settled = () => expect(clock.pending + (lease?.signal.aborted ? 1 : 0)).toBe(1);
    for (let t = 0; t < 3; t++) {
      await clock.advance(10_000);
      await vi.waitFor(settled);
    }
    expect(lease?.signal.aborted).toBe(true);
    expect(await b.acquire('telegram:77', { ttlMs: 30_000, keepAlive: false })).toMatchObject({
      owner: 'replica-b',
    });
  });
});
