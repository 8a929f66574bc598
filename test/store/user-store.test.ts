/**
 * The lowdb user store on real temp directories: files on disk, restart,
 * crash leftovers, quarantine, mixed listings, write failures and growth.
 */
import { appendFile, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock.js';
import { isErrorCode, SwitchboardError } from '../../src/errors.js';
import { createUserSessionStore, SESSION_SCHEMA_VERSION } from '../../src/store/index.js';
import { capturingLogger, message, meta, record, tempDirs } from './helpers.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const texts = (outcome: Awaited<ReturnType<ReturnType<typeof createUserSessionStore>['load']>>) =>
  outcome.status === 'valid'
    ? outcome.record.messages.map((m) => (m.content[0] as { text: string }).text)
    : outcome;

describe('createUserSessionStore', () => {
  it('keeps a small record and an append-only messages file per session', async () => {
    const dir = await dirs.make();
    const store = createUserSessionStore(dir);
    await store.create(record('s1', [message('hello')], { name: 'demo' }));
    await store.append('s1', [message('reply', 'assistant')], meta('s1', 2, { name: 'demo' }));
    expect((await readdir(dir)).sort()).toEqual(['s1.json', 's1.messages.jsonl']);
    const onDisk = JSON.parse(await readFile(join(dir, 's1.json'), 'utf8'));
    expect(onDisk).toMatchObject({
      version: SESSION_SCHEMA_VERSION,
      id: 's1',
      name: 'demo',
      messageCount: 2,
    });
    expect(onDisk.messages).toBeUndefined();
    const lines = (await readFile(join(dir, 's1.messages.jsonl'), 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(3); // header + two messages
    expect(JSON.parse(lines[2] as string).content).toEqual([{ type: 'text', text: 'reply' }]);
  });

  it('reads back in a fresh instance (a restart) everything the first wrote', async () => {
    const dir = await dirs.make();
    const first = createUserSessionStore(dir);
    await first.create(record('s1', [message('a')], { owner: 'slack:U1' }));
    await first.append(
      's1',
      [message('b'), message('c')],
      meta('s1', 3, { owner: 'slack:U1', lastReportedTokens: 77 }),
    );
    await first.updateMeta(
      meta('s1', 3, { owner: 'slack:U1', name: 'kept', allowedScopes: ['Bash:npm test'] }),
    );
    await first.create(record('s2', [message('other')]));
    await first.replace('s2', [message('summary')], meta('s2', 1));
    await first.flush();

    const second = createUserSessionStore(dir);
    const s1 = await second.load('s1');
    expect(texts(s1)).toEqual(['a', 'b', 'c']);
    expect(s1).toMatchObject({ status: 'valid', record: { name: 'kept', allowedScopes: ['Bash:npm test'] } });
    expect(texts(await second.load('s2'))).toEqual(['summary']);
    await second.append('s1', [message('d')], meta('s1', 4, { name: 'kept' }));
    expect(texts(await createUserSessionStore(dir).load('s1'))).toEqual(['a', 'b', 'c', 'd']);
  });

  it('ignores lines a crash left past messageCount and trims them on the next write', async () => {
    const dir = await dirs.make();
    const store = createUserSessionStore(dir);
    await store.create(record('s1', [message('one')]));
    const path = join(dir, 's1.messages.jsonl');
    const committed = await readFile(path, 'utf8');
    // The append reached the file but the record was never rewritten, then a torn line.
    await appendFile(path, `${JSON.stringify(message('lost turn'))}\n{"id":"m9","role":"assis`);

    const restarted = createUserSessionStore(dir);
    expect(texts(await restarted.load('s1'))).toEqual(['one']);
    await restarted.append('s1', [message('two')], meta('s1'));
    expect(await readFile(path, 'utf8')).toBe(
      `${committed}${JSON.stringify((await lastMessage(restarted)) ?? {})}\n`,
    );
    expect(texts(await createUserSessionStore(dir).load('s1'))).toEqual(['one', 'two']);
  });

  it('uses the new messages file when a compaction died before writing its record', async () => {
    const dir = await dirs.make();
    const store = createUserSessionStore(dir);
    await store.create(record('s1', [message('a'), message('b'), message('c')]));
    // What replace() leaves if the process dies right after renaming the new file in place.
    const header = JSON.stringify({ type: 'switchboard-messages', version: 1, epoch: 'newer' });
    await writeFile(join(dir, 's1.messages.jsonl'), `${header}\n${JSON.stringify(message('summary'))}\n`);
    const restarted = createUserSessionStore(dir);
    expect(texts(await restarted.load('s1'))).toEqual(['summary']);
    await restarted.append('s1', [message('next')], meta('s1'));
    const again = await createUserSessionStore(dir).load('s1');
    expect(texts(again)).toEqual(['summary', 'next']);
    expect(again).toMatchObject({ record: { messageCount: 2 } });
  });

  it('quarantines a corrupt session byte for byte and reports the new paths', async () => {
    const dir = await dirs.make();
    const clock = new VirtualClock(Date.parse('2026-11-30T01:02:03.456Z'));
    const store = createUserSessionStore(dir, { clock });
    await store.create(record('s1', [message('a')]));
    const recordPath = join(dir, 's1.json');
    const truncated = (await readFile(recordPath)).subarray(0, 30);
    await writeFile(recordPath, truncated);
    const messagesBefore = await readFile(join(dir, 's1.messages.jsonl'));

    expect(await store.load('s1')).toMatchObject({ status: 'corrupt', path: recordPath });
    const moved = await store.quarantine('s1');
    expect(moved.sort()).toEqual([
      join(dir, 's1.json.corrupt-2026-11-30T010203.456Z'),
      join(dir, 's1.messages.jsonl.corrupt-2026-11-30T010203.456Z'),
    ]);
    expect(await readFile(moved[0] as string)).toEqual(truncated);
    expect(await readFile(moved[1] as string)).toEqual(messagesBefore);
    expect(await store.load('s1')).toEqual({ status: 'missing' });
    expect(await store.list()).toEqual([]);

    await writeFile(recordPath, '{');
    const second = await store.quarantine('s1');
    expect(second).toEqual([join(dir, 's1.json.corrupt-2026-11-30T010203.456Z-2')]);
  });

  it('reports a messages file cut short inside the committed lines as corrupt, and never writes over it', async () => {
    const dir = await dirs.make();
    const store = createUserSessionStore(dir);
    await store.create(record('s1', [message('one'), message('two'), message('three')]));
    const path = join(dir, 's1.messages.jsonl');
    const full = await readFile(path);
    const cut = full.subarray(0, full.length - 20);
    await writeFile(path, cut);

    const restarted = createUserSessionStore(dir);
    expect(await restarted.load('s1')).toMatchObject({
      status: 'corrupt',
      path,
      reason: expect.stringContaining('2 of the 3'),
    });
    await expect(restarted.append('s1', [message('four')], meta('s1'))).rejects.toSatisfy((err) =>
      isErrorCode(err, 'SESSION_CORRUPT'),
    );
    expect(await readFile(path)).toEqual(cut);
    const moved = await restarted.quarantine('s1');
    expect(moved).toHaveLength(2);
    await restarted.create(record('s1', [message('fresh start')]));
    expect(texts(await createUserSessionStore(dir).load('s1'))).toEqual(['fresh start']);
  });

  it('lists every record with its outcome, without reading messages', async () => {
    const dir = await dirs.make();
    const { logger, lines } = capturingLogger();
    const store = createUserSessionStore(dir, { logger });
    await store.create(record('a-valid', [message('x')], { name: 'ok' }));
    await store.create(record('b-badmessages', [message('x')]));
    await writeFile(join(dir, 'b-badmessages.messages.jsonl'), 'garbage\n');
    await writeFile(join(dir, 'c-truncated.json'), '{"version":1,"id":"c-trunc');
    await writeFile(join(dir, 'd-future.json'), JSON.stringify({ ...meta('d-future'), version: 7 }));
    await writeFile(join(dir, 'e-orphan.messages.jsonl'), '');
    await writeFile(join(dir, '.f.json.tmp'), '{');
    await writeFile(join(dir, 'notes.txt'), 'hello');
    await writeFile(join(dir, 'g.json.corrupt-2026-01-01T000000.000Z'), '{');

    const listed = await store.list();
    expect(listed.map((e) => [e.id, e.outcome.status])).toEqual([
      ['a-valid', 'valid'],
      ['b-badmessages', 'valid'],
      ['c-truncated', 'corrupt'],
      ['d-future', 'unsupported'],
      ['e-orphan', 'missing'],
    ]);
    expect(listed[0]?.outcome).toEqual({
      status: 'valid',
      record: expect.objectContaining({ name: 'ok', messageCount: 1 }),
    });
    expect(JSON.stringify(listed)).not.toContain('_store');
    expect(listed[3]?.outcome).toMatchObject({ version: 7, path: join(dir, 'd-future.json') });
    expect(
      lines.some((l) => l.msg === 'files that are not sessions' && String(l.files) === 'notes.txt'),
    ).toBe(true);
    expect(await store.load('b-badmessages')).toMatchObject({ status: 'corrupt' });
  });

  it('lists 400 sessions through a bounded read pool, reporting each one', async () => {
    const dir = await dirs.make();
    const store = createUserSessionStore(dir, { readConcurrency: 16 });
    const text = (id: string) => JSON.stringify(meta(id, 0));
    const ids = Array.from({ length: 400 }, (_, i) => `s${String(i).padStart(4, '0')}`);
    await Promise.all(ids.map((id) => writeFile(join(dir, `${id}.json`), i(id) ? '{' : text(id))));
    const listed = await store.list();
    expect(listed.map((e) => e.id)).toEqual(ids);
    expect(listed.filter((e) => e.outcome.status === 'corrupt')).toHaveLength(40);
    function i(id: string) {
      return id.endsWith('7');
    }
  });

  it('reports a failed record write with its cause, logs it, and keeps the last commit', async () => {
    const dir = await dirs.make();
    const { logger, lines } = capturingLogger();
    const store = createUserSessionStore(dir, { logger });
    await store.create(record('s1', [message('a')]));
    // The record's temp file cannot be created: lowdb's atomic write fails.
    await mkdir(join(dir, '.s1.json.tmp'));
    const failure = await store.append('s1', [message('b')], meta('s1')).catch((err: unknown) => err);
    expect(isErrorCode(failure, 'STORE_WRITE_FAILED')).toBe(true);
    expect((failure as SwitchboardError).cause).toMatchObject({ code: 'EISDIR' });
    expect(lines.some((l) => l.level === 50 && String(l.msg).includes('store write failed'))).toBe(true);
    expect(texts(await createUserSessionStore(dir).load('s1'))).toEqual(['a']);

    await rm(join(dir, '.s1.json.tmp'), { recursive: true });
    await store.append('s1', [message('c')], meta('s1'));
    expect(texts(await createUserSessionStore(dir).load('s1'))).toEqual(['a', 'c']);
  });

  it('reports writes into a directory that was removed or is not a directory', async () => {
    const root = await dirs.make();
    const { logger, lines } = capturingLogger();
    const dir = join(root, 'sessions');
    const store = createUserSessionStore(dir, { logger });
    await store.create(record('s1', [message('a')]));
    await rm(dir, { recursive: true });
    await expect(store.create(record('s2', [message('b')]))).rejects.toSatisfy(
      (err) => isErrorCode(err, 'STORE_WRITE_FAILED') && (err as Error).cause !== undefined,
    );
    await expect(store.append('s1', [message('b')], meta('s1'))).rejects.toSatisfy((err) =>
      isErrorCode(err, 'SESSION_MISSING'),
    );

    await writeFile(join(root, 'plain-file'), 'x');
    const blocked = createUserSessionStore(join(root, 'plain-file'), { logger });
    await expect(blocked.create(record('s1', []))).rejects.toSatisfy((err) =>
      isErrorCode(err, 'STORE_WRITE_FAILED'),
    );
    expect(lines.filter((l) => l.level === 50)).toHaveLength(2);
  });

  it('writes a constant number of bytes per appended message, however long the history', async () => {
    const dir = await dirs.make();
    const store = createUserSessionStore(dir);
    await store.create(record('s1', []));
    const line = (i: number) => ({ ...message('x'.repeat(100)), id: `msg-${String(i).padStart(6, '0')}` });
    const lineBytes = Buffer.byteLength(`${JSON.stringify(line(0))}\n`);
    const messagesPath = join(dir, 's1.messages.jsonl');
    const recordPath = join(dir, 's1.json');
    const growth = new Set<number>();
    const recordSizes: number[] = [];
    let previous = -1;
    for (let i = 0; i < 1000; i++) {
      await store.append('s1', [line(i)], meta('s1'));
      const size = (await stat(messagesPath)).size;
      if (previous >= 0) growth.add(size - previous);
      previous = size;
      recordSizes.push((await stat(recordPath)).size);
    }
    expect([...growth]).toEqual([lineBytes]);
    // The record only grows with the digits of messageCount.
    expect(Math.max(...recordSizes) - Math.min(...recordSizes)).toBeLessThanOrEqual(3);
    const loaded = await createUserSessionStore(dir).load('s1');
    expect(loaded).toMatchObject({ status: 'valid', record: { messageCount: 1000 } });
  });
});

async function lastMessage(store: ReturnType<typeof createUserSessionStore>) {
  const loaded = await store.load('s1');
  return loaded.status === 'valid' ? loaded.record.messages.at(-1) : undefined;
}

describe('SwitchboardError from the store', () => {
  it('names what to do in the message', async () => {
    const dir = await dirs.make();
    await writeFile(join(dir, 's1.json'), '{');
    const err = await createUserSessionStore(dir)
      .updateMeta(meta('s1'))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SwitchboardError);
    expect((err as Error).message).toMatch(/left exactly as it is.*quarantine/);
  });
});
