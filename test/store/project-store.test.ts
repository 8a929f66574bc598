/**
 * The project store: sessions under <cwd>/.switchboard/sessions plus an
 * append-only event log per session that rebuilds a missing record.
 */
import { appendFile, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isErrorCode } from '../../src/errors.js';
import { createProjectSessionStore, type SessionStore } from '../../src/store/index.js';
import { capturingLogger, message, meta, record, tempDirs } from './helpers.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const texts = (outcome: Awaited<ReturnType<SessionStore['load']>>) =>
  outcome.status === 'valid'
    ? outcome.record.messages.map((m) => (m.content[0] as { text: string }).text)
    : outcome;

async function project() {
  const cwd = await dirs.make();
  const sessions = join(cwd, '.switchboard', 'sessions');
  const logs = join(cwd, '.switchboard', 'logs');
  const events = async (id: string) =>
    (await readFile(join(logs, `${id}.jsonl`), 'utf8'))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { cwd, sessions, logs, events };
}

/** Builds s1 through every kind of write. */
async function history(store: SessionStore) {
  await store.create(record('s1', [message('a')], { owner: 'telegram:1' }));
  await store.append('s1', [message('b'), message('c', 'assistant')], meta('s1', 3, { owner: 'telegram:1' }));
  await store.updateMeta(
    meta('s1', 3, { owner: 'telegram:1', name: 'named', updatedAt: '2026-11-29T13:00:00.000Z' }),
  );
  await store.replace('s1', [message('summary')], meta('s1', 1, { owner: 'telegram:1', name: 'named' }));
  await store.append('s1', [message('d')], meta('s1', 2, { owner: 'telegram:1', name: 'named', model: 'm' }));
}

describe('createProjectSessionStore', () => {
  it('keeps state under .switchboard and logs only what each write changed', async () => {
    const p = await project();
    const store = createProjectSessionStore(p.cwd);
    await history(store);
    expect((await readdir(p.sessions)).sort()).toEqual(['s1.json', 's1.messages.jsonl']);
    const events = await p.events('s1');
    expect(events.map((e) => e.type)).toEqual(['create', 'append', 'meta', 'replace', 'append']);
    expect(events[0]).toMatchObject({
      meta: { owner: 'telegram:1', version: 1 },
      messages: [{ id: expect.any(String) }],
    });
    expect(events[0]?.meta).not.toHaveProperty('messageCount');
    expect(events[1]?.messages).toHaveLength(2); // only the new messages
    expect(events[1]?.meta).toEqual({});
    expect(events[2]?.meta).toEqual({ set: { name: 'named', updatedAt: '2026-11-29T13:00:00.000Z' } });
    expect(events[3]?.meta).toEqual({ set: { updatedAt: '2026-11-29T12:00:00.000Z' } });
    expect(events[4]).toMatchObject({ meta: { set: { model: 'm' } } });
    expect(events[4]?.messages).toHaveLength(1);
  });

  it('rebuilds a missing record from the log and writes it back', async () => {
    const p = await project();
    const { logger, lines } = capturingLogger();
    await history(createProjectSessionStore(p.cwd));
    const before = await createProjectSessionStore(p.cwd).load('s1');
    await rm(join(p.sessions, 's1.json'));
    await rm(join(p.sessions, 's1.messages.jsonl'));

    const store = createProjectSessionStore(p.cwd, { logger });
    const rebuilt = await store.load('s1');
    expect(rebuilt).toEqual(before);
    expect(texts(rebuilt)).toEqual(['summary', 'd']);
    expect(lines.some((l) => String(l.msg).includes('rebuilt from its event log'))).toBe(true);
    await rm(join(p.logs, 's1.jsonl'));
    expect(await createProjectSessionStore(p.cwd).load('s1')).toEqual(before); // written back
  });

  it('goes on appending to a rebuilt session, and lists a session that only has a log', async () => {
    const p = await project();
    await history(createProjectSessionStore(p.cwd));
    await rm(join(p.sessions, 's1.json'));
    const store = createProjectSessionStore(p.cwd);
    expect(await store.list()).toEqual([
      {
        id: 's1',
        outcome: { status: 'valid', record: expect.objectContaining({ name: 'named', messageCount: 2 }) },
      },
    ]);
    await store.append('s1', [message('e')], meta('s1', 3, { name: 'named' }));
    expect(texts(await createProjectSessionStore(p.cwd).load('s1'))).toEqual(['summary', 'd', 'e']);
  });

  it('ignores a torn final log line when rebuilding', async () => {
    const p = await project();
    await history(createProjectSessionStore(p.cwd));
    await appendFile(join(p.logs, 's1.jsonl'), '{"type":"append","meta":{},"messages":[{"id":"m');
    await rm(join(p.sessions, 's1.json'));
    expect(texts(await createProjectSessionStore(p.cwd).load('s1'))).toEqual(['summary', 'd']);
  });

  it.each([
    ['an unparsable line', (lines: string[]) => lines.toSpliced(2, 1, '{"type":"meta","meta":{"set":')],
    ['an unknown event', (lines: string[]) => lines.toSpliced(2, 0, '{"type":"rewind","steps":3}')],
    ['an event before create', (lines: string[]) => lines.slice(1)],
    ['a second create', (lines: string[]) => [...lines, lines[0] as string]],
    [
      'a record of another version',
      (lines: string[]) => [lines[0]?.replace('"version":1', '"version":3') as string],
    ],
  ])('reports a damaged log (%s) as corrupt and writes nothing', async (what, damage) => {
    const p = await project();
    await history(createProjectSessionStore(p.cwd));
    const logPath = join(p.logs, 's1.jsonl');
    const lines = (await readFile(logPath, 'utf8')).trimEnd().split('\n');
    const damaged = `${damage(lines).join('\n')}\n`;
    await writeFile(logPath, damaged);
    await rm(join(p.sessions, 's1.json'));
    await rm(join(p.sessions, 's1.messages.jsonl'));

    const store = createProjectSessionStore(p.cwd);
    const expected = what.includes('version') ? 'unsupported' : 'corrupt';
    expect(await store.load('s1')).toMatchObject({ status: expected, path: logPath });
    expect(await store.list()).toEqual([
      { id: 's1', outcome: expect.objectContaining({ status: expected }) },
    ]);
    await expect(store.append('s1', [message('x')], meta('s1'))).rejects.toBeDefined();
    expect(await readdir(p.sessions)).toEqual([]);
    expect(await readFile(logPath, 'utf8')).toBe(damaged);
  });

  it('drops a log event whose write never reached the record (crash in between)', async () => {
    const p = await project();
    const store = createProjectSessionStore(p.cwd);
    await store.create(record('s1', [message('a')]));
    const logPath = join(p.logs, 's1.jsonl');
    const committed = (await stat(logPath)).size;
    // The log got the event, then the process died before the messages and the record.
    await appendFile(
      logPath,
      `${JSON.stringify({ type: 'append', meta: {}, messages: [message('ghost')] })}\n`,
    );

    const restarted = createProjectSessionStore(p.cwd);
    expect(texts(await restarted.load('s1'))).toEqual(['a']);
    await restarted.append('s1', [message('b')], meta('s1'));
    const events = await p.events('s1');
    expect(events.map((e) => e.type)).toEqual(['create', 'append']);
    expect(JSON.stringify(events)).not.toContain('ghost');
    expect((await stat(logPath)).size).toBeGreaterThan(committed);

    await rm(join(p.sessions, 's1.json'));
    expect(texts(await createProjectSessionStore(p.cwd).load('s1'))).toEqual(['a', 'b']);
  });

  it('starts the log again, keeping the old one aside, when it is shorter than the record says', async () => {
    const p = await project();
    await history(createProjectSessionStore(p.cwd));
    const logPath = join(p.logs, 's1.jsonl');
    await writeFile(logPath, '');
    const store = createProjectSessionStore(p.cwd);
    await store.append(
      's1',
      [message('e')],
      meta('s1', 3, { owner: 'telegram:1', name: 'named', model: 'm' }),
    );
    expect((await p.events('s1')).map((e) => e.type)).toEqual(['create', 'append']);
    expect((await readdir(p.logs)).some((name) => name.startsWith('s1.jsonl.corrupt-'))).toBe(true);
    await rm(join(p.sessions, 's1.json'));
    expect(texts(await createProjectSessionStore(p.cwd).load('s1'))).toEqual(['summary', 'd', 'e']);
  });

  it('keeps the log in step when a compaction died before writing its record', async () => {
    const p = await project();
    const store = createProjectSessionStore(p.cwd);
    await store.create(record('s1', [message('a'), message('b')]));
    // replace() got as far as the log and the new messages file, then the process died.
    await appendFile(
      join(p.logs, 's1.jsonl'),
      `${JSON.stringify({ type: 'replace', meta: {}, messages: [message('summary')] })}\n`,
    );
    const header = JSON.stringify({ type: 'switchboard-messages', version: 1, epoch: 'newer' });
    await writeFile(
      join(p.sessions, 's1.messages.jsonl'),
      `${header}\n${JSON.stringify(message('summary'))}\n`,
    );

    const restarted = createProjectSessionStore(p.cwd);
    expect(texts(await restarted.load('s1'))).toEqual(['summary']);
    await restarted.append('s1', [message('next')], meta('s1'));
    await rm(join(p.sessions, 's1.json'));
    expect(texts(await createProjectSessionStore(p.cwd).load('s1'))).toEqual(['summary', 'next']);
  });

  it('quarantines the record, the messages and the log together', async () => {
    const p = await project();
    const store = createProjectSessionStore(p.cwd);
    await store.create(record('s1', [message('a')]));
    await writeFile(join(p.sessions, 's1.json'), '{"version":1');
    const moved = await store.quarantine('s1');
    expect(moved.map((path) => path.replace(/\.corrupt-.*$/, '')).sort()).toEqual(
      [join(p.logs, 's1.jsonl'), join(p.sessions, 's1.json'), join(p.sessions, 's1.messages.jsonl')].sort(),
    );
    expect(await store.load('s1')).toEqual({ status: 'missing' });
  });

  it('grows the log by a constant size per appended message', async () => {
    const p = await project();
    const store = createProjectSessionStore(p.cwd);
    await store.create(record('s1', []));
    const logPath = join(p.logs, 's1.jsonl');
    const growth = new Set<number>();
    let previous = (await stat(logPath)).size;
    for (let i = 0; i < 200; i++) {
      await store.append(
        's1',
        [{ ...message('y'.repeat(50)), id: `m-${String(i).padStart(4, '0')}` }],
        meta('s1'),
      );
      const size = (await stat(logPath)).size;
      growth.add(size - previous);
      previous = size;
    }
    expect(growth.size).toBe(1);
  });

  it('refuses to create over a session whose log is damaged', async () => {
    const p = await project();
    await history(createProjectSessionStore(p.cwd));
    await writeFile(join(p.logs, 's1.jsonl'), 'nonsense\n{}\n');
    await rm(join(p.sessions, 's1.json'));
    await expect(createProjectSessionStore(p.cwd).create(record('s1', []))).rejects.toSatisfy((err) =>
      isErrorCode(err, 'SESSION_CORRUPT'),
    );
  });
});
