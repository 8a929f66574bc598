/**
 * The behaviour every SessionStore must share, whatever holds the data
 * (lowdb files, memory, a database): the same outcomes for the same data and
 * the same refusals. Each store's test file calls {@link sessionStoreContract}
 * with a harness that can plant raw data the way its storage holds it.
 */
import { describe, expect, it } from 'vitest';
import { isErrorCode } from '../../src/errors.js';
import type { SessionStore } from '../../src/store/index.js';
import { message, meta, record } from './helpers.js';

/** A store under test plus access to its raw storage. */
export interface Harness {
  store: SessionStore;
  /** Plants a raw record text and message lines for `id`, as if written by someone else. */
  plant(id: string, recordText: string, lines?: string[]): Promise<void>;
  /** The raw record text of `id`. */
  rawRecord(id: string): Promise<string | undefined>;
}

const refusedWrites = (store: SessionStore, id: string) => [
  () => store.create(record(id, [message('new')])),
  () => store.append(id, [message('more')], meta(id)),
  () => store.replace(id, [message('summary')], meta(id)),
  () => store.updateMeta(meta(id, 0, { name: 'renamed' })),
];

/** Declares the shared SessionStore tests under `name` for stores made by `makeHarness`. */
export function sessionStoreContract(name: string, makeHarness: () => Promise<Harness>): void {
  describe(name, () => {
    it('creates, loads, appends, replaces and updates a session', async () => {
      const { store } = await makeHarness();
      const first = [message('hello'), message('hi there', 'assistant')];
      await store.create(record('s1', first, { name: 'first', owner: 'telegram:1' }));
      expect(await store.load('s1')).toMatchObject({
        status: 'valid',
        record: { id: 's1', name: 'first', owner: 'telegram:1', messageCount: 2, messages: first },
      });

      const turn = [message('and now?'), message('now this', 'assistant')];
      await store.append(
        's1',
        turn,
        meta('s1', 4, { name: 'first', owner: 'telegram:1', lastReportedTokens: 42 }),
      );
      const afterAppend = await store.load('s1');
      expect(afterAppend.status === 'valid' && afterAppend.record.messages).toEqual([...first, ...turn]);
      expect(afterAppend.status === 'valid' && afterAppend.record.lastReportedTokens).toBe(42);

      await store.updateMeta(meta('s1', 4, { name: 'renamed', owner: 'telegram:1', permissionMode: 'plan' }));
      const summary = { ...message('[Context Summary] all of it', 'user'), kind: 'summary' as const };
      await store.replace('s1', [summary], meta('s1', 1, { name: 'renamed', owner: 'telegram:1' }));
      const loaded = await store.load('s1');
      expect(loaded).toMatchObject({ status: 'valid', record: { name: 'renamed', messageCount: 1 } });
      expect(loaded.status === 'valid' && loaded.record.messages).toEqual([summary]);
      expect(await store.load('nope')).toEqual({ status: 'missing' });
    });

    it('keeps every content block as received and the frozen frame byte for byte', async () => {
      await expectBlocksKept((await makeHarness()).store);
    });

    it('keeps the usage ledger with the record (append, list, reload) and calls a malformed one corrupt', async () => {
      const { store, plant } = await makeHarness();
      const totals = {
        calls: 2,
        inputTokens: 20,
        cacheWrite5mTokens: 3000,
        cacheWrite1hTokens: 0,
        cacheReadTokens: 2900,
        outputTokens: 70,
      };
      const usage = { days: { '2026-12-01': { 'claude-sonnet-5-5': totals } } };
      await store.create(record('u1', [message('hello')]));
      await store.append('u1', [message('hi', 'assistant')], meta('u1', 2, { usage }));
      const loaded = await store.load('u1');
      expect(loaded.status === 'valid' && loaded.record.usage).toEqual(usage);
      const listed = (await store.list()).find((e) => e.id === 'u1');
      expect(listed?.outcome.status === 'valid' && listed.outcome.record.usage).toEqual(usage);

      const bad = { ...meta('u2', 0), usage: { days: { yesterday: { m: totals } } } };
      await plant('u2', JSON.stringify(bad));
      expect((await store.load('u2')).status).toBe('corrupt');
    });

    it('counts messages itself, whatever messageCount the caller passes', async () => {
      const { store } = await makeHarness();
      await store.create({ ...record('s1', [message('a')]), messageCount: 99 });
      await store.append('s1', [message('b'), message('c')], meta('s1', 7));
      const listed = await store.list();
      expect(listed).toEqual([
        { id: 's1', outcome: { status: 'valid', record: expect.objectContaining({ messageCount: 3 }) } },
      ]);
      const loaded = await store.load('s1');
      expect(loaded.status === 'valid' && loaded.record.messages.map((m) => m.content[0])).toEqual([
        { type: 'text', text: 'a' },
        { type: 'text', text: 'b' },
        { type: 'text', text: 'c' },
      ]);
    });

    it('reports a truncated record as corrupt and refuses to write over it', async () => {
      const h = await makeHarness();
      const text = JSON.stringify(meta('s1')).slice(0, 40);
      await h.plant('s1', text);
      expect(await h.store.load('s1')).toMatchObject({
        status: 'corrupt',
        reason: expect.stringContaining('JSON'),
      });
      for (const write of refusedWrites(h.store, 's1')) {
        await expect(write()).rejects.toSatisfy((err) => isErrorCode(err, 'SESSION_CORRUPT'));
      }
      expect(await h.rawRecord('s1')).toBe(text);
    });

    it('reports a record of another schema version as unsupported and refuses to write over it', async () => {
      const h = await makeHarness();
      const text = JSON.stringify({ ...meta('s1'), version: 2, shape: 'from the future' });
      await h.plant('s1', text);
      expect(await h.store.load('s1')).toMatchObject({ status: 'unsupported', version: 2 });
      for (const write of refusedWrites(h.store, 's1')) {
        await expect(write()).rejects.toSatisfy((err) => isErrorCode(err, 'SESSION_UNSUPPORTED'));
      }
      expect(await h.rawRecord('s1')).toBe(text);
    });

    it.each([
      ['an empty file', ''],
      ['null', 'null'],
      ['an array', '[1,2]'],
      ['an object without version', '{"hello":"world"}'],
      ['a record missing fields', JSON.stringify({ version: 1, id: 's1' })],
      ['a record of another id', JSON.stringify(meta('s2'))],
    ])('reports %s as corrupt', async (_what, text) => {
      const h = await makeHarness();
      await h.plant('s1', text);
      expect(await h.store.load('s1')).toMatchObject({ status: 'corrupt' });
      expect(await h.store.list()).toEqual([
        { id: 's1', outcome: expect.objectContaining({ status: 'corrupt' }) },
      ]);
    });

    it('reports a damaged committed message and a short history as corrupt', async () => {
      const h = await makeHarness();
      const good = JSON.stringify(message('fine'));
      await h.plant('s1', JSON.stringify(meta('s1', 2)), [good, '{"id":"m","role":"us']);
      expect(await h.store.load('s1')).toMatchObject({
        status: 'corrupt',
        reason: expect.stringContaining('2 of 2'),
      });
      await h.plant('s2', JSON.stringify(meta('s2', 3)), [good, good]);
      expect(await h.store.load('s2')).toMatchObject({
        status: 'corrupt',
        reason: expect.stringContaining('truncated'),
      });
      await expect(h.store.append('s2', [message('x')], meta('s2'))).rejects.toSatisfy((err) =>
        isErrorCode(err, 'SESSION_CORRUPT'),
      );
    });

    it('ignores lines past messageCount, including a torn one', async () => {
      const h = await makeHarness();
      const lines = [JSON.stringify(message('one')), JSON.stringify(message('two')), '{"torn":'];
      await h.plant('s1', JSON.stringify(meta('s1', 1)), lines);
      const loaded = await h.store.load('s1');
      expect(loaded.status === 'valid' && loaded.record.messages.map((m) => m.content[0])).toEqual([
        { type: 'text', text: 'one' },
      ]);
      await h.store.append('s1', [message('three')], meta('s1'));
      const after = await h.store.load('s1');
      expect(after.status === 'valid' && after.record.messages.map((m) => m.content[0])).toEqual([
        { type: 'text', text: 'one' },
        { type: 'text', text: 'three' },
      ]);
    });

    it('refuses ids that could name a path, on every method', async () => {
      const { store } = await makeHarness();
      for (const id of ['../../etc', 'a/b', '', '.hidden', 'x'.repeat(65)]) {
        const calls = [
          () => store.load(id),
          () => store.create(record(id, [])),
          () => store.append(id, [], meta(id)),
          () => store.replace(id, [], meta(id)),
          () => store.updateMeta(meta(id)),
          () => store.quarantine(id),
        ];
        for (const call of calls)
          await expect(call()).rejects.toSatisfy((err) => isErrorCode(err, 'INVALID_NAME'));
      }
    });

    it('refuses meta of another session and data that would not read back', async () => {
      const { store } = await makeHarness();
      await store.create(record('s1', [message('a')]));
      await expect(store.append('s1', [message('b')], meta('s2'))).rejects.toSatisfy((err) =>
        isErrorCode(err, 'INVALID_NAME'),
      );
      const broken = { ...message('b'), content: 'not blocks' } as unknown as ReturnType<typeof message>;
      await expect(store.append('s1', [broken], meta('s1'))).rejects.toSatisfy((err) =>
        isErrorCode(err, 'STORE_WRITE_FAILED'),
      );
      await expect(store.updateMeta({ ...meta('s1'), permissionMode: 'yolo' as 'plan' })).rejects.toSatisfy(
        (err) => isErrorCode(err, 'STORE_WRITE_FAILED'),
      );
      const loaded = await store.load('s1');
      expect(loaded.status === 'valid' && loaded.record.messageCount).toBe(1);
    });

    it('refuses to append to a session that does not exist', async () => {
      const { store } = await makeHarness();
      await expect(store.append('ghost', [message('a')], meta('ghost'))).rejects.toSatisfy((err) =>
        isErrorCode(err, 'SESSION_MISSING'),
      );
    });

    it('quarantines a corrupt session so the id reads as missing', async () => {
      const h = await makeHarness();
      await h.plant('s1', '{"version":1,');
      const moved = await h.store.quarantine('s1');
      expect(moved.length).toBeGreaterThan(0);
      for (const path of moved) expect(path).toMatch(/\.corrupt-\d{4}-\d\d-\d\dT\d{6}\.\d{3}Z$/);
      expect(await h.store.load('s1')).toEqual({ status: 'missing' });
      expect(await h.store.list()).toEqual([]);
      await h.store.create(record('s1', [message('fresh')]));
      expect(await h.store.load('s1')).toMatchObject({ status: 'valid' });
    });

    it('orders writes to one session issued without waiting', async () => {
      const { store } = await makeHarness();
      await store.create(record('s1', []));
      const writes = Array.from({ length: 40 }, (_, i) => store.append('s1', [message(`n${i}`)], meta('s1')));
      await store.flush();
      await Promise.all(writes);
      const loaded = await store.load('s1');
      expect(loaded.status === 'valid' && loaded.record.messages.map((m) => m.content[0])).toEqual(
        Array.from({ length: 40 }, (_, i) => ({ type: 'text', text: `n${i}` })),
      );
    });

    it('keeps the messages out of the small record', async () => {
      const h = await makeHarness();
      await h.store.create(record('s1', [message('a')]));
      await h.store.updateMeta({ ...record('s1', [message('a')]), name: 'n' });
      expect(await h.rawRecord('s1')).not.toContain('"messages"');
      const loaded = await h.store.load('s1');
      expect(loaded).toMatchObject({ status: 'valid', record: { name: 'n', messageCount: 1 } });
    });
  });
}

/**
 * Asserts `store` keeps a reply's blocks as received (the API's own shape,
 * key order and nulls included, unknown types too) and a frozen frame's
 * tools byte for byte. Shared with the PostgreSQL contract.
 */
export async function expectBlocksKept(
  store: SessionStore,
  reopened: () => Promise<SessionStore> = async () => store,
): Promise<void> {
  // Blocks of the Messages API's own shape, key order and nulls included, and a type nobody knows yet.
  const reply = {
    ...message('', 'assistant'),
    content: [
      {
        type: 'api' as const,
        block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'q' } },
      },
      {
        type: 'api' as const,
        block: {
          type: 'web_search_tool_result',
          tool_use_id: 'srvtoolu_1',
          content: [
            {
              type: 'web_search_result',
              url: 'https://a.example',
              encrypted_content: 'E\u0001x',
              page_age: null,
            },
          ],
        },
      },
      {
        type: 'text' as const,
        text: 'cited',
        citations: [
          { type: 'web_search_result_location', url: 'https://a.example', cited_text: 'c', title: null },
        ],
      },
      {
        type: 'tool_use' as const,
        id: 'toolu_1',
        name: 'rollDie',
        input: {},
        caller: { type: 'code_execution_20250825', tool_id: 'srvtoolu_2' },
      },
      {
        type: 'api' as const,
        block: { type: 'fallback', from: { model: 'claude-fable-5' }, to: { model: 'claude-opus-4-8' } },
      },
      { type: 'api' as const, block: { type: 'compaction', content: 'summary', encrypted_content: null } },
      { type: 'api' as const, block: { zeta: 1, type: 'block_from_the_future', alpha: [2, { b: 1, a: 0 }] } },
    ],
  };
  // Tool schemas as JSON text: a store that reorders object keys (jsonb) cannot change a byte of them.
  const frame = {
    system: 'You are terse.',
    tools: '[{"name":"Read","inputSchema":{"type":"object","required":["path"],"properties":{}}}]',
    mode: 'default',
  };
  await store.create(record('s9', [message('go')], {}));
  await store.append('s9', [reply], { ...meta('s9', 2), frame });
  const loaded = await (await reopened()).load('s9');
  expect(loaded.status === 'valid' && JSON.stringify(loaded.record.messages[1])).toBe(JSON.stringify(reply));
  expect(loaded.status === 'valid' && loaded.record.frame).toEqual(frame);
  expect(loaded.status === 'valid' && loaded.record.frame?.tools).toBe(frame.tools);
}
