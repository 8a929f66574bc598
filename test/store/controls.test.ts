/**
 * The controls store's contract, on files, in memory and on PostgreSQL:
 * counters add up (across two stores on one schema at once), a flag is
 * claimed once, settings are listed by prefix in order, and the files keep
 * it all across a reopen.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type ControlsStore, createControlsStore, createMemoryControlsStore } from '../../src/store/index.js';
import { createPostgresStores, type PostgresStores } from '../../src/store/postgres/index.js';
import { testDatabaseUrl, testSchemas } from '../store-postgres/database.js';

const url = testDatabaseUrl();
const schemas = url ? testSchemas(url) : undefined;
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  await schemas?.cleanup();
});

async function contract(store: ControlsStore): Promise<void> {
  await store.add({ a: 1.25, b: 2 });
  await store.add({ a: 0.5 });
  expect(await store.read(['a', 'b', 'c'])).toEqual({ a: 1.75, b: 2, c: 0 });
  expect(await store.claim('warned:x')).toBe(true);
  expect(await store.claim('warned:x')).toBe(false);
  await store.setSetting('rule:chat1:1', { tool: 'Bash' });
  await store.setSetting('rule:chat1:2', { tool: 'Write' });
  await store.setSetting('rule:chat2:1', { tool: 'Edit' });
  expect((await store.listSettings('rule:chat1:')).map(([k]) => k)).toEqual(['rule:chat1:1', 'rule:chat1:2']);
  await store.setSetting('rule:chat1:1', undefined);
  expect(await store.getSetting('rule:chat1:1')).toBeUndefined();
  expect(await store.getSetting('rule:chat1:2')).toEqual({ tool: 'Write' });
  await store.flush();
}

describe('controls store', () => {
  it('in memory', async () => {
    await contract(createMemoryControlsStore());
  });

  it('on files, kept across a reopen; a damaged file is moved aside and started empty', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'switchboard-controls-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    await contract(createControlsStore(dir));
    const again = createControlsStore(dir);
    expect(await again.read(['a', 'b'])).toEqual({ a: 1.75, b: 2 });
    expect(await again.claim('warned:x')).toBe(false);
    expect(await again.getSetting('rule:chat1:2')).toEqual({ tool: 'Write' });
    await writeFile(join(dir, 'controls.jsonl'), 'not json\n{"add":{"a":1}}\n');
    const damaged = createControlsStore(dir);
    expect(await damaged.read(['a'])).toEqual({ a: 0 });
    await damaged.add({ a: 3 });
    await damaged.flush();
    expect(await createControlsStore(dir).read(['a'])).toEqual({ a: 3 });
  });

  it.skipIf(!url)('on PostgreSQL, two stores adding at once lose nothing and claim a flag once', async () => {
    const schema = (schemas as NonNullable<typeof schemas>).name();
    const open = (): PostgresStores => {
      const stores = createPostgresStores({ connectionString: url as string, schema });
      cleanups.push(() => stores.close());
      return stores;
    };
    const one = open();
    await one.migrate();
    await contract(one.controlsStore);
    const two = open();
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? one : two).controlsStore.add({ spent: 0.25 })),
    );
    expect(await two.controlsStore.read(['spent'])).toEqual({ spent: 5 });
    const claims = await Promise.all([one, two, one, two].map((s) => s.controlsStore.claim('once')));
    expect(claims.filter(Boolean)).toHaveLength(1);
  });
});
