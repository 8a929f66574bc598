/**
 * The store contract, run against both backends: the lowdb files (the
 * embedded default) and PostgreSQL (several replicas). Same data, same
 * outcomes, same refusals.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { isErrorCode } from '../../src/errors.js';
import type { SessionStore } from '../../src/store/types.js';
import type { HistoryMessage } from '../../src/vocabulary.js';
import { pdfBytes } from '../fakes/pdfs.js';
import { message, meta, record, tempDirs } from '../store/helpers.js';
import { expectBlocksKept } from '../store/session-store-contract.js';
import { SKIP_REASON, testDatabaseUrl, testSchemas } from './database.js';
import { type Harness, lowdbHarness, postgresHarness } from './harness.js';

const url = testDatabaseUrl();
const schemas = url ? testSchemas(url) : undefined;
const dirs = tempDirs();
const harnesses: Harness[] = [];

afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
  await dirs.cleanup();
});
afterAll(() => schemas?.cleanup());

const backends: Array<[string, (() => Promise<Harness>) | undefined]> = [
  ['lowdb', async () => lowdbHarness(await dirs.make())],
  ['postgres', schemas && (() => postgresHarness(schemas))],
];

const texts = (loaded: Awaited<ReturnType<SessionStore['load']>>) =>
  loaded.status === 'valid'
    ? loaded.record.messages.map((m) => (m.content[0] as { text: string }).text)
    : loaded;

const refusedWrites = (store: SessionStore, id: string) => [
  () => store.create(record(id, [message('new')])),
  () => store.append(id, [message('more')], meta(id)),
  () => store.replace(id, [message('summary')], meta(id)),
  () => store.updateMeta(meta(id, 0, { name: 'renamed' })),
];

describe.each(backends)('%s store', (_name, make) => {
  if (!make) {
    it.skip(SKIP_REASON, () => undefined);
    return;
  }
  const harness = async () => {
    const h = await make();
    harnesses.push(h);
    return h;
  };

  it('keeps every content block as received and the frozen frame byte for byte', async () => {
    const h = await harness();
    // Read back by a new instance over the same data, as after a restart.
    await expectBlocksKept(h.sessions, async () => (await h.reopen()).sessions);
  });

  it('keeps a PDF the person sent (a document block) byte for byte across a restart', async () => {
    const h = await harness();
    const pdf = pdfBytes(2).toString('base64');
    const withFile: HistoryMessage = {
      ...message('what is in it?'),
      content: [
        { type: 'text', text: '[File received: "r.pdf" (1 KB, application/pdf), saved as uploads/r.pdf.]' },
        { type: 'document', mediaType: 'application/pdf', data: pdf, title: 'r.pdf' },
        { type: 'text', text: 'what is in it?' },
      ],
    };
    await h.sessions.create(record('pdf1', [withFile]));
    await h.sessions.append('pdf1', [message('two pages', 'assistant')], meta('pdf1', 2));
    const loaded = await (await h.reopen()).sessions.load('pdf1');
    expect(loaded.status === 'valid' && loaded.record.messages[0]).toEqual(withFile);
  });

  it('keeps the usage ledger with the record across a restart; a malformed ledger is corrupt', async () => {
    const h = await harness();
    const totals = {
      calls: 3,
      inputTokens: 30,
      cacheWrite5mTokens: 4000,
      cacheWrite1hTokens: 1200,
      cacheReadTokens: 8000,
      outputTokens: 90,
    };
    const usage = {
      days: { '2026-12-01': { 'claude-sonnet-5-5': { ...totals, long: { ...totals, calls: 1 } } } },
    };
    await h.sessions.create(record('u1', [message('hello')]));
    await h.sessions.append('u1', [message('hi', 'assistant')], meta('u1', 2, { usage }));
    const after = await h.reopen();
    const loaded = await after.sessions.load('u1');
    expect(loaded.status === 'valid' && loaded.record.usage).toEqual(usage);
    await h.plant('u2', { ...meta('u2'), usage: { days: { '2026-12-01': { m: { calls: -1 } } } } });
    expect((await after.sessions.load('u2')).status).toBe('corrupt');
  });

  it('creates, loads and lists sessions with an outcome for every record', async () => {
    const h = await harness();
    const first = [message('hello'), message('hi there', 'assistant')];
    await h.sessions.create(
      record('s1', first, { name: 'first', owner: 'telegram:1', model: 'claude-sonnet-4-6' }),
    );
    await h.plant('s2', { hello: 'world' });
    await h.plant('s3', { ...meta('s3'), version: 2 });
    expect(await h.sessions.load('s1')).toEqual({
      status: 'valid',
      record: { ...record('s1', first, { name: 'first', owner: 'telegram:1', model: 'claude-sonnet-4-6' }) },
    });
    expect(await h.sessions.load('missing')).toEqual({ status: 'missing' });
    expect(await h.sessions.list()).toEqual([
      {
        id: 's1',
        outcome: { status: 'valid', record: expect.objectContaining({ name: 'first', messageCount: 2 }) },
      },
      { id: 's2', outcome: expect.objectContaining({ status: 'corrupt' }) },
      { id: 's3', outcome: expect.objectContaining({ status: 'unsupported', version: 2 }) },
    ]);
    const listed = (await h.sessions.list())[0];
    expect(listed?.outcome.status === 'valid' && 'messages' in listed.outcome.record).toBe(false);
  });

  it('appends only the new messages: history grows by the same amount per turn and is never rewritten', async () => {
    const h = await harness();
    await h.sessions.create(record('s1', []));
    let before = await h.history('s1');
    const growth: number[] = [];
    for (let turn = 0; turn < 12; turn++) {
      const count = (turn + 1) * 2;
      await h.sessions.append(
        's1',
        [message(`q${turn}`), message(`a${turn}`, 'assistant')],
        meta('s1', count),
      );
      const after = await h.history('s1');
      expect(after.slice(0, before.length)).toEqual(before);
      growth.push(after.length - before.length);
      before = after;
    }
    expect(growth).toEqual(Array(12).fill(2));
    const loaded = await h.sessions.load('s1');
    expect(loaded.status === 'valid' && loaded.record.messageCount).toBe(24);
    expect(texts(loaded)).toEqual(Array.from({ length: 12 }, (_, i) => [`q${i}`, `a${i}`]).flat());
  });

  it('replaces the whole history on compaction and appends after it', async () => {
    const h = await harness();
    await h.sessions.create(record('s1', [message('a'), message('b', 'assistant')]));
    const old = await h.history('s1');
    const summary = { ...message('[Context Summary] a and b'), kind: 'summary' as const };
    await h.sessions.replace('s1', [summary], meta('s1', 1, { name: 'compacted' }));
    const fresh = await h.history('s1');
    expect(fresh.some((unit) => old.includes(unit) && unit !== old[0])).toBe(false);
    await h.sessions.append('s1', [message('c')], meta('s1', 2, { name: 'compacted' }));
    const loaded = await h.sessions.load('s1');
    expect(loaded).toMatchObject({ status: 'valid', record: { name: 'compacted', messageCount: 2 } });
    expect(loaded.status === 'valid' && loaded.record.messages[0]).toEqual(summary);
    expect(texts(loaded)).toEqual(['[Context Summary] a and b', 'c']);
  });

  it('updates the record alone, leaving the stored history as it was', async () => {
    const h = await harness();
    await h.sessions.create(record('s1', [message('a')]));
    const history = await h.history('s1');
    await h.sessions.updateMeta(
      meta('s1', 1, { name: 'renamed', permissionMode: 'plan', allowedScopes: ['Bash:ls'] }),
    );
    expect(await h.history('s1')).toEqual(history);
    expect(await h.sessions.load('s1')).toMatchObject({
      status: 'valid',
      record: { name: 'renamed', permissionMode: 'plan', allowedScopes: ['Bash:ls'], messageCount: 1 },
    });
  });

  it.each([
    ['null', null],
    ['an array', [1, 2]],
    ['an object without version', { hello: 'world' }],
    ['a record missing fields', { version: 1, id: 's1' }],
    ['a record of another id', meta('s2')],
    ['a record with a bad permission mode', { ...meta('s1'), permissionMode: 'yolo' }],
  ])('reports %s as corrupt and never writes over it', async (_what, value) => {
    const h = await harness();
    await h.plant('s1', value, [message('kept')]);
    const before = await h.raw('s1');
    expect(await h.sessions.load('s1')).toMatchObject({ status: 'corrupt', reason: expect.any(String) });
    expect(await h.sessions.list()).toEqual([
      { id: 's1', outcome: expect.objectContaining({ status: 'corrupt' }) },
    ]);
    for (const write of refusedWrites(h.sessions, 's1')) {
      await expect(write()).rejects.toSatisfy((err) => isErrorCode(err, 'SESSION_CORRUPT'));
    }
    expect(await h.raw('s1')).toBe(before);
  });

  it('reports a record of another schema version as unsupported and never writes over it', async () => {
    const h = await harness();
    await h.plant('s1', { ...meta('s1'), version: 2, shape: 'from the future' });
    const before = await h.raw('s1');
    expect(await h.sessions.load('s1')).toMatchObject({ status: 'unsupported', version: 2 });
    for (const write of refusedWrites(h.sessions, 's1')) {
      await expect(write()).rejects.toSatisfy((err) => isErrorCode(err, 'SESSION_UNSUPPORTED'));
    }
    expect(await h.raw('s1')).toBe(before);
  });

  it('reports a damaged committed message and a short history as corrupt', async () => {
    const h = await harness();
    await h.plant('s1', meta('s1', 2), [message('fine'), { id: 'm', role: 'us' }]);
    expect(await h.sessions.load('s1')).toMatchObject({
      status: 'corrupt',
      reason: expect.stringContaining('2 of 2'),
    });
    await h.plant('s2', meta('s2', 3), [message('a'), message('b')]);
    expect(await h.sessions.load('s2')).toMatchObject({
      status: 'corrupt',
      reason: expect.stringContaining('truncated'),
    });
    await expect(h.sessions.append('s2', [message('x')], meta('s2'))).rejects.toSatisfy((err) =>
      isErrorCode(err, 'SESSION_CORRUPT'),
    );
  });

  it('ignores stored messages past the committed count and appends after the committed ones', async () => {
    const h = await harness();
    await h.plant('s1', meta('s1', 1), [message('one'), message('two'), { torn: true }]);
    expect(texts(await h.sessions.load('s1'))).toEqual(['one']);
    await h.sessions.append('s1', [message('three')], meta('s1'));
    expect(texts(await h.sessions.load('s1'))).toEqual(['one', 'three']);
  });

  it('quarantines a corrupt session so its id reads as missing and can start fresh', async () => {
    const h = await harness();
    await h.plant('s1', { version: 1 }, [message('old')]);
    const moved = await h.sessions.quarantine('s1');
    expect(moved.length).toBeGreaterThan(0);
    for (const where of moved) expect(where).toMatch(/s1\.[a-z.]*corrupt-\d{4}-\d\d-\d\dT\d{6}\.\d{3}Z$/);
    expect(await h.sessions.load('s1')).toEqual({ status: 'missing' });
    expect(await h.sessions.list()).toEqual([]);
    expect(await h.sessions.quarantine('s1')).toEqual([]);
    await h.sessions.create(record('s1', [message('fresh')]));
    expect(texts(await h.sessions.load('s1'))).toEqual(['fresh']);
  });

  it('refuses ids that could name a path, on every method', async () => {
    const h = await harness();
    for (const id of ['../../etc', 'a/b', '', '.hidden', 'x'.repeat(65), "s1'; DROP TABLE sessions; --"]) {
      const calls = [
        () => h.sessions.load(id),
        () => h.sessions.create(record(id, [])),
        () => h.sessions.append(id, [], meta(id)),
        () => h.sessions.replace(id, [], meta(id)),
        () => h.sessions.updateMeta(meta(id)),
        () => h.sessions.quarantine(id),
      ];
      for (const call of calls)
        await expect(call()).rejects.toSatisfy((err) => isErrorCode(err, 'INVALID_NAME'));
    }
  });

  it('refuses meta of another session, data that would not read back, and a session that does not exist', async () => {
    const h = await harness();
    await h.sessions.create(record('s1', [message('a')]));
    await expect(h.sessions.append('s1', [message('b')], meta('s2'))).rejects.toSatisfy((err) =>
      isErrorCode(err, 'INVALID_NAME'),
    );
    const broken = { ...message('b'), content: 'not blocks' } as unknown as ReturnType<typeof message>;
    await expect(h.sessions.append('s1', [broken], meta('s1'))).rejects.toSatisfy((err) =>
      isErrorCode(err, 'STORE_WRITE_FAILED'),
    );
    await expect(h.sessions.append('ghost', [message('a')], meta('ghost'))).rejects.toSatisfy((err) =>
      isErrorCode(err, 'SESSION_MISSING'),
    );
    expect(texts(await h.sessions.load('s1'))).toEqual(['a']);
  });

  it('keeps any text a message holds, NUL and astral characters included', async () => {
    const h = await harness();
    const odd = message('binary\u0000output \u{1F600} "quoted" \\ back\nslash');
    await h.sessions.create(record('s1', [odd]));
    await h.sessions.append('s1', [message('\u0000')], meta('s1'));
    expect(texts(await h.sessions.load('s1'))).toEqual([
      'binary\u0000output \u{1F600} "quoted" \\ back\nslash',
      '\u0000',
    ]);
  });

  it('orders writes to one session issued without waiting', async () => {
    const h = await harness();
    await h.sessions.create(record('s1', []));
    const writes = Array.from({ length: 30 }, (_, i) =>
      h.sessions.append('s1', [message(`n${i}`)], meta('s1')),
    );
    await h.sessions.flush();
    await Promise.all(writes);
    expect(texts(await h.sessions.load('s1'))).toEqual(Array.from({ length: 30 }, (_, i) => `n${i}`));
  });

  it('maps chat keys to sessions, rewriting only what changed', async () => {
    const h = await harness();
    expect(await h.state.getChat('telegram:1')).toBeUndefined();
    const binding = { sessionId: 's1', owner: 'telegram:7', updatedAt: '2026-11-29T12:00:00.000Z' };
    await h.state.setChat('telegram:1', binding);
    await h.state.setChat('slack:C1:1.2', { sessionId: 's2', updatedAt: '2026-11-29T12:00:00.000Z' });
    // The same mapping with a newer time is not a change.
    await h.state.setChat('telegram:1', { ...binding, updatedAt: '2026-11-30T00:00:00.000Z' });
    expect(await h.state.getChat('telegram:1')).toEqual(binding);
    await h.state.setChat('telegram:1', { ...binding, sessionId: 's3' });
    expect(await h.state.getChat('telegram:1')).toEqual({ ...binding, sessionId: 's3' });
    const chats = (await h.state.listChats()).sort(([a], [b]) => (a < b ? -1 : 1));
    expect(chats).toEqual([
      ['slack:C1:1.2', { sessionId: 's2', updatedAt: '2026-11-29T12:00:00.000Z' }],
      ['telegram:1', { ...binding, sessionId: 's3' }],
    ]);
  });

  it('handles a delivery id once, even when two instances are handed it at the same time', async () => {
    const h = await harness();
    expect(await h.state.markDelivered('telegram:100')).toBe(true);
    expect(await h.state.markDelivered('telegram:100')).toBe(false);
    expect(await h.state.markDelivered('telegram:101')).toBe(true);
    const [first, second] = await Promise.all([
      h.state.markDelivered('slack:Ev1'),
      h.state.markDelivered('slack:Ev1'),
    ]);
    expect([first, second].sort()).toEqual([false, true]);
  });

  it('records turns in flight until they end', async () => {
    const h = await harness();
    await h.state.beginTurn({ chat: 'telegram:1', sessionId: 's1', startedAt: '2026-11-29T12:00:00.000Z' });
    await h.state.beginTurn({
      chat: 'discord:9',
      sessionId: 's2',
      startedAt: '2026-11-29T12:00:01.000Z',
      replyMessageId: '555',
    });
    await h.state.endTurn('telegram:1');
    await h.state.endTurn('never-started');
    expect(await h.state.activeTurns()).toEqual([
      { chat: 'discord:9', sessionId: 's2', startedAt: '2026-11-29T12:00:01.000Z', replyMessageId: '555' },
    ]);
  });

  it('gives a fresh instance over the same data everything the first one wrote', async () => {
    const h = await harness();
    await h.sessions.create(record('s1', [message('a')], { name: 'kept' }));
    await h.sessions.append('s1', [message('b', 'assistant')], meta('s1', 2, { name: 'kept' }));
    await h.state.setChat('telegram:1', { sessionId: 's1', updatedAt: '2026-11-29T12:00:00.000Z' });
    await h.state.markDelivered('telegram:500');
    await h.state.beginTurn({ chat: 'telegram:1', sessionId: 's1', startedAt: '2026-11-29T12:00:00.000Z' });
    await Promise.all([h.sessions.flush(), h.state.flush()]);

    const next = await h.reopen();
    expect(await next.sessions.load('s1')).toMatchObject({
      status: 'valid',
      record: { name: 'kept', messageCount: 2 },
    });
    expect(await next.state.getChat('telegram:1')).toEqual({
      sessionId: 's1',
      updatedAt: '2026-11-29T12:00:00.000Z',
    });
    expect(await next.state.markDelivered('telegram:500')).toBe(false);
    expect(await next.state.activeTurns()).toEqual([
      { chat: 'telegram:1', sessionId: 's1', startedAt: '2026-11-29T12:00:00.000Z' },
    ]);
    await next.sessions.append('s1', [message('c')], meta('s1'));
    expect(texts(await next.sessions.load('s1'))).toEqual(['a', 'b', 'c']);
  });
});
