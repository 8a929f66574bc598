import { rm, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CUT_OFF_NOTICE, SessionLoadError } from '../../src/session/index.js';
import {
  createMemorySessionStore,
  createUserSessionStore,
  SESSION_SCHEMA_VERSION,
} from '../../src/store/index.js';
import { recordEvents, removeDir, tempDir, useSessionFixture } from './helpers.js';

const fx = useSessionFixture();
const session = (options: Parameters<typeof fx.session>[0] = {}) => fx.session(options);
let dataDir: string;

beforeEach(async () => {
  dataDir = await tempDir('sb-data-');
});
afterEach(async () => {
  await removeDir(dataDir);
});

describe('persist, resume and fork', () => {
  it('resumes across a fresh store instance: history, name, owner, mode and context survive', async () => {
    const first = session({
      sessionStore: createUserSessionStore(dataDir),
      sessionName: 'my-task',
      owner: 'telegram:1',
      permissionMode: 'acceptEdits',
    });
    fx.fake.enqueue({ text: 'one', usage: { input_tokens: 4_000, output_tokens: 10 } }, { text: 'two' });
    await (await first.submit('first')).completed;
    await (await first.submit('second')).completed;
    first.setName('architecture-review');
    const id = first.getSession().getSessionId();
    const state = first.getContextState();
    await first.close();

    // A restart: a new store object over the same directory.
    const store = createUserSessionStore(dataDir);
    const listed = await store.list();
    expect(listed.map((e) => [e.id, e.outcome.status])).toEqual([[id, 'valid']]);
    const resumed = session({ sessionStore: store, resumeSessionId: id });
    expect(resumed.getSession().getSessionId()).toBe(id);
    await resumed.ready;
    expect(resumed.getName()).toBe('architecture-review');
    expect(resumed.getOwner()).toBe('telegram:1');
    expect(resumed.getSession().getPermissionMode()).toBe('acceptEdits');
    expect(resumed.getFullHistory()).toEqual(first.getFullHistory());
    expect(resumed.getContextState()).toEqual(state);

    await (await resumed.submit('third')).completed;
    const sent = fx.fake.requests.at(-1).messages;
    expect(sent.map((m: { content: Array<{ text: string }> }) => m.content[0]?.text)).toEqual([
      'first',
      'one',
      'second',
      'two',
      'third',
    ]);
    await resumed.close();
    const reloaded = await createUserSessionStore(dataDir).load(id);
    expect(reloaded.status === 'valid' && reloaded.record.messages).toHaveLength(6);
  });

  it('fork: a new id with the same history, saved as its own record; the original is unchanged', async () => {
    const store = createUserSessionStore(dataDir);
    const original = session({ sessionStore: store, owner: 'slack:U1' });
    await (await original.submit('hello')).completed;
    const id = original.getSession().getSessionId();
    await original.close();

    const forked = session({
      sessionStore: createUserSessionStore(dataDir),
      resumeSessionId: id,
      forkSession: true,
    });
    await forked.ready;
    const forkId = forked.getSession().getSessionId();
    expect(forkId).not.toBe(id);
    expect(forked.getFullHistory()).toEqual(original.getFullHistory());
    expect(forked.getOwner()).toBe('slack:U1');
    await (await forked.submit('only in the fork')).completed;
    await forked.close();

    const fresh = createUserSessionStore(dataDir);
    const a = await fresh.load(id);
    const b = await fresh.load(forkId);
    expect(a.status === 'valid' && a.record.messages).toHaveLength(2);
    expect(b.status === 'valid' && b.record.messages).toHaveLength(4);
    expect(b.status === 'valid' && b.record.forkedFrom).toBe(id);
  });

  it('ready rejects with status missing / corrupt / unsupported, and submit() with it', async () => {
    const store = createMemorySessionStore();
    store.putRaw('broken', { record: '{"version": 1, "id": "bro' });
    store.putRaw('future', {
      record: JSON.stringify({ version: SESSION_SCHEMA_VERSION + 1, id: 'future' }),
    });
    for (const [id, status, code] of [
      ['nosuch', 'missing', 'SESSION_MISSING'],
      ['broken', 'corrupt', 'SESSION_CORRUPT'],
      ['future', 'unsupported', 'SESSION_UNSUPPORTED'],
    ] as const) {
      const s = session({ sessionStore: store, resumeSessionId: id });
      const err = await s.ready.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(SessionLoadError);
      expect(err).toMatchObject({ status, code, detail: { status } });
      await expect(s.submit('hi')).rejects.toBe(err);
    }
    // The corrupt record was reported, not replaced.
    expect(store.getRaw('broken')?.record).toBe('{"version": 1, "id": "bro');
  });

  it('saves only what a turn added, including an interrupted reply', async () => {
    const store = createUserSessionStore(dataDir);
    const s = session({ sessionStore: store });
    fx.fake.enqueue({ text: ['partial ', 'reply'], stallAfterChunks: 1 });
    const delta = new Promise<void>((resolve) => s.once('text_delta', () => resolve()));
    const turn = s.submit('hello');
    await delta;
    s.abort();
    await (await turn).completed;
    await s.close();
    const saved = await createUserSessionStore(dataDir).load(s.getSession().getSessionId());
    expect(saved.status).toBe('valid');
    if (saved.status !== 'valid') return;
    expect(saved.record.messages.map((m) => [m.role, m.state])).toEqual([
      ['user', undefined],
      ['assistant', 'interrupted'],
    ]);
    expect(saved.record.messageCount).toBe(2);
  });

  it('an abort before the first token survives a restart and the next request says so', async () => {
    const s = session({ sessionStore: createUserSessionStore(dataDir) });
    fx.fake.enqueue({ text: ['never sent'], stallAfterChunks: 0 });
    const turn = s.submit('hello');
    await fx.fake.waitFor(() => fx.fake.log.length === 1);
    s.abort();
    await expect((await turn).completed).resolves.toMatchObject({ state: 'interrupted', response: '' });
    await s.close();
    const resumed = session({
      sessionStore: createUserSessionStore(dataDir),
      resumeSessionId: s.getSession().getSessionId(),
    });
    await (await resumed.submit('are you there?')).completed;
    const body = fx.fake.requests.at(-1);
    expect(body.messages).toHaveLength(1);
    expect(body.messages[0].content.map((b: { text: string }) => b.text)).toEqual([
      'hello',
      CUT_OFF_NOTICE,
      'are you there?',
    ]);
  });

  it('a failed save emits save_error and the turn still completes', async () => {
    const s = session({ sessionStore: createUserSessionStore(dataDir) });
    const rec = recordEvents(s);
    await s.ready;
    // Replace the data directory by a file: every write now fails.
    await rm(dataDir, { recursive: true, force: true });
    await writeFile(dataDir, 'not a directory');
    const result = await (await s.submit('hello')).completed;
    expect(result.state).toBe('complete');
    expect(rec.of('save_error')).toHaveLength(1);
    expect(rec.of('save_error')[0]?.[0]).toBeInstanceOf(Error);
    await rm(dataDir, { force: true });
  });

  it('rejects invalid names and ids with INVALID_NAME', async () => {
    const s = session();
    await s.ready;
    expect(() => s.setName('../../etc')).toThrow(expect.objectContaining({ code: 'INVALID_NAME' }));
    const bad = session({ sessionStore: createMemorySessionStore(), resumeSessionId: '../x' });
    await expect(bad.ready).rejects.toMatchObject({ code: 'INVALID_NAME' });
  });
});
