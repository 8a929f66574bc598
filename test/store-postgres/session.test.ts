/**
 * The real session engine on the PostgreSQL store: turns saved on one
 * replica resume on another with their history, name, mode and context
 * state; compaction and forks survive the move; each turn inserts only its
 * own rows.
 */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { InteractiveSession } from '../../src/session/index.js';
import { createPostgresStores, type PostgresStores } from '../../src/store/postgres/index.js';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic.js';
import { newSession, removeDir, tempDir } from '../session/helpers.js';
import { SKIP_REASON, testDatabaseUrl, testSchemas } from './database.js';

const url = testDatabaseUrl();
const schemas = url ? testSchemas(url) : undefined;
let fake: FakeAnthropic | undefined;
let cwd = '';
const sessions: InteractiveSession[] = [];
const stores: PostgresStores[] = [];

beforeAll(async () => {
  if (!schemas) return;
  fake = await startFakeAnthropic();
  cwd = await tempDir();
});
afterEach(async () => {
  for (const s of sessions.splice(0)) await s.close();
  await Promise.all(stores.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  await fake?.close();
  if (cwd) await removeDir(cwd);
  await schemas?.cleanup();
});

/** One replica's view of the shared database: its own pool and stores. */
function replica(schema: string): PostgresStores {
  if (!schemas) throw new Error('no database');
  const opened = createPostgresStores({ pool: schemas.pool(), schema });
  stores.push(opened);
  return opened;
}

function session(store: PostgresStores, options: Parameters<typeof newSession>[2] = {}): InteractiveSession {
  if (!fake) throw new Error('no fake');
  const s = newSession(fake, cwd, { sessionStore: store.sessionStore, ...options });
  sessions.push(s);
  return s;
}

const rowsOf = async (store: PostgresStores, id: string) =>
  (
    await store.pool.query<{ generation: number; seq: number }>(
      `SELECT generation, seq FROM "${store.schema}".session_messages WHERE session_id = $1 ORDER BY generation, seq`,
      [id],
    )
  ).rows;

it.skipIf(!schemas)('resumes on another replica what one replica saved, compaction included', async () => {
  if (!schemas || !fake) return;
  const schema = await schemas.fresh();
  const a = replica(schema);
  const first = session(a, {
    sessionName: 'shared-task',
    owner: 'telegram:1',
    permissionMode: 'acceptEdits',
  });
  fake.enqueue({ text: 'one', usage: { input_tokens: 3_000, output_tokens: 5 } }, { text: 'two' });
  await (await first.submit('first')).completed;
  const id = first.getSession().getSessionId();
  expect(await rowsOf(a, id)).toEqual([
    { generation: 0, seq: 0 },
    { generation: 0, seq: 1 },
  ]);
  await (await first.submit('second')).completed;
  expect(await rowsOf(a, id)).toHaveLength(4);
  await first.close();

  const b = replica(schema);
  const resumed = session(b, { resumeSessionId: id });
  await resumed.ready;
  expect(resumed.getName()).toBe('shared-task');
  expect(resumed.getOwner()).toBe('telegram:1');
  expect(resumed.getSession().getPermissionMode()).toBe('acceptEdits');
  expect(resumed.getFullHistory()).toEqual(first.getFullHistory());
  expect(resumed.getContextState()).toEqual(first.getContextState());

  fake.enqueue({ text: 'A summary of first and second.' });
  await resumed.compactContext();
  expect(await rowsOf(b, id)).toEqual([{ generation: 1, seq: 0 }]);
  await (await resumed.submit('third')).completed;
  await resumed.close();

  const again = await replica(schema).sessionStore.load(id);
  expect(again.status === 'valid' && again.record.messages.map((m) => m.kind ?? m.role)).toEqual([
    'summary',
    'user',
    'assistant',
  ]);
});

it.skipIf(!schemas)('forks a session saved by another replica, leaving the original as it was', async () => {
  if (!schemas || !fake) return;
  const schema = await schemas.fresh();
  const original = session(replica(schema), { owner: 'slack:U1' });
  await (await original.submit('hello')).completed;
  const id = original.getSession().getSessionId();
  await original.close();

  const forked = session(replica(schema), { resumeSessionId: id, forkSession: true });
  await forked.ready;
  const forkId = forked.getSession().getSessionId();
  await (await forked.submit('only in the fork')).completed;
  await forked.close();

  const check = replica(schema).sessionStore;
  const [a, b] = [await check.load(id), await check.load(forkId)];
  expect(a.status === 'valid' && a.record.messages).toHaveLength(2);
  expect(b.status === 'valid' && b.record.messages).toHaveLength(4);
  expect(b.status === 'valid' && b.record).toMatchObject({ forkedFrom: id, owner: 'slack:U1' });
});

if (!schemas) it.skip(SKIP_REASON, () => undefined);
