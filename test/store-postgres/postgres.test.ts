/**
 * What only the PostgreSQL store has: migrations, several replicas writing
 * at once, transactions that leave nothing half-written, delivery pruning,
 * and a database that cannot be reached.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock.js';
import { isErrorCode } from '../../src/errors.js';
import {
  createPostgresStores,
  MIGRATIONS,
  migratePostgres,
  type PostgresStores,
} from '../../src/store/postgres/index.js';
import { capturingLogger, message, meta, record } from '../store/helpers.js';
import { SKIP_REASON, testDatabaseUrl, testSchemas } from './database.js';

const url = testDatabaseUrl();
const schemas = url ? testSchemas(url) : undefined;
const opened: PostgresStores[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});
afterAll(() => schemas?.cleanup());

const texts = (loaded: Awaited<ReturnType<PostgresStores['sessionStore']['load']>>) =>
  loaded.status === 'valid'
    ? loaded.record.messages.map((m) => (m.content[0] as { text: string }).text)
    : loaded;

it('refuses a schema name that is not a plain identifier', () => {
  for (const schema of ['Public', 'a-b', 'x"; DROP SCHEMA public; --', '', 'a'.repeat(49)]) {
    expect(() => createPostgresStores({ connectionString: 'postgres://127.0.0.1:1/x', schema })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
  }
});

it('reports a database it cannot reach as STORE_UNAVAILABLE, without the password', async () => {
  const stores = createPostgresStores({
    connectionString: 'postgres://someone:hunter2secret@127.0.0.1:1/nowhere',
  });
  opened.push(stores);
  for (const call of [() => stores.sessionStore.load('s1'), () => stores.stateStore.markDelivered('x')]) {
    const error = await call().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(isErrorCode(error, 'STORE_UNAVAILABLE')).toBe(true);
    expect((error as Error).message).not.toContain('hunter2secret');
    expect((error as Error).message).toContain('SWITCHBOARD_DATABASE_URL');
  }
});

describe.skipIf(!schemas)('postgres store', () => {
  const open = (schema: string, extra: Partial<Parameters<typeof createPostgresStores>[0]> = {}) => {
    if (!schemas) throw new Error('no database');
    const stores = createPostgresStores({ pool: schemas.pool(), schema, ...extra } as Parameters<
      typeof createPostgresStores
    >[0]);
    opened.push(stores);
    return stores;
  };

  it('migrates a fresh schema once, even when two replicas start at the same time', async () => {
    if (!schemas) return;
    const schema = schemas.name();
    const [a, b] = [schemas.pool(), schemas.pool()];
    const applied = await Promise.all([migratePostgres(a, { schema }), migratePostgres(b, { schema })]);
    expect(applied.flat().sort()).toEqual(MIGRATIONS.map((m) => m.version));
    expect(await migratePostgres(a, { schema })).toEqual([]);
    const { rows } = await a.query(
      `SELECT version, name FROM "${schema}".schema_migrations ORDER BY version`,
    );
    expect(rows).toEqual(MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
  });

  it('rolls a failing migration back whole and applies it once it is fixed', async () => {
    if (!schemas) return;
    const schema = schemas.name();
    const pool = schemas.pool();
    const first = {
      version: 1,
      name: 'one',
      sql: (t: (n: string) => string) => `CREATE TABLE ${t('one')} (x int)`,
    };
    const broken = {
      version: 2,
      name: 'two',
      sql: (t: (n: string) => string) => `CREATE TABLE ${t('two')} (x int); SELECT no_such_function()`,
    };
    const error = await migratePostgres(pool, { schema, migrations: [first, broken] }).catch(
      (err: unknown) => err,
    );
    expect(isErrorCode(error, 'STORE_UNAVAILABLE')).toBe(true);
    expect((error as Error).message).toContain('migration 2 (two)');
    const tables = async () =>
      (
        await pool.query<{ name: string }>(
          `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1`,
          [schema],
        )
      ).rows.map((r) => r.name);
    expect(await tables()).toEqual(['one', 'schema_migrations']);
    const fixed = { ...broken, sql: (t: (n: string) => string) => `CREATE TABLE ${t('two')} (x int)` };
    expect(await migratePostgres(pool, { schema, migrations: [first, fixed] })).toEqual([2]);
    expect(await tables()).toEqual(['one', 'schema_migrations', 'two']);
  });

  it('refuses to run on a schema a newer switchboard migrated', async () => {
    if (!schemas) return;
    const schema = schemas.name();
    const stores = open(schema);
    await stores.migrate();
    await stores.pool.query(
      `INSERT INTO "${schema}".schema_migrations (version, name) VALUES (99, 'future')`,
    );
    const error = await migratePostgres(stores.pool, { schema }).catch((err: unknown) => err);
    expect(isErrorCode(error, 'STORE_UNAVAILABLE')).toBe(true);
    expect((error as Error).message).toContain('version 99');
  });

  it('loses no message when two replicas append to one session at the same time', async () => {
    if (!schemas) return;
    const schema = await schemas.fresh();
    const a = open(schema);
    const b = open(schema);
    await a.sessionStore.create(record('s1', []));
    await b.sessionStore.load('s1');
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => [
        a.sessionStore.append('s1', [message(`a${i}`)], meta('s1')),
        b.sessionStore.append('s1', [message(`b${i}`)], meta('s1')),
      ]).flat(),
    );
    const loaded = await a.sessionStore.load('s1');
    const got = texts(loaded) as string[];
    expect(got).toHaveLength(20);
    expect(got.filter((t) => t.startsWith('a'))).toEqual(Array.from({ length: 10 }, (_, i) => `a${i}`));
    expect(got.filter((t) => t.startsWith('b'))).toEqual(Array.from({ length: 10 }, (_, i) => `b${i}`));
  });

  it('leaves a session exactly as it was when a write fails half-way, and says so', async () => {
    if (!schemas) return;
    const schema = await schemas.fresh();
    const { logger, lines } = capturingLogger();
    const stores = open(schema, { logger });
    await stores.sessionStore.create(record('s1', [message('a')], { name: 'before' }));
    const t = `"${schema}".session_messages`;
    await stores.pool.query(`CREATE FUNCTION "${schema}".refuse() RETURNS trigger LANGUAGE plpgsql AS
      $$ BEGIN RAISE EXCEPTION 'disk full'; END $$`);
    await stores.pool.query(
      `CREATE TRIGGER refuse BEFORE INSERT ON ${t} FOR EACH ROW EXECUTE FUNCTION "${schema}".refuse()`,
    );
    const error = await stores.sessionStore
      .append('s1', [message('b')], meta('s1', 2, { name: 'after' }))
      .catch((err: unknown) => err);
    expect(isErrorCode(error, 'STORE_WRITE_FAILED')).toBe(true);
    expect(lines.some((l) => l.level === 50 && String(l.msg).includes('store write failed'))).toBe(true);
    await stores.pool.query(`DROP TRIGGER refuse ON ${t}`);
    expect(await stores.sessionStore.load('s1')).toMatchObject({
      status: 'valid',
      record: { name: 'before', messageCount: 1 },
    });
    await stores.sessionStore.append('s1', [message('b')], meta('s1', 2, { name: 'after' }));
    expect(texts(await stores.sessionStore.load('s1'))).toEqual(['a', 'b']);
  });

  it('keeps only the newest generation of messages after compaction', async () => {
    if (!schemas) return;
    const schema = await schemas.fresh();
    const stores = open(schema);
    await stores.sessionStore.create(record('s1', [message('a'), message('b'), message('c')]));
    await stores.sessionStore.replace('s1', [message('summary')], meta('s1'));
    const { rows } = await stores.pool.query(
      `SELECT generation, seq FROM "${schema}".session_messages WHERE session_id = 's1'`,
    );
    expect(rows).toEqual([{ generation: 1, seq: 0 }]);
  });

  it('keeps a quarantined session whole in the quarantine table', async () => {
    if (!schemas) return;
    const schema = await schemas.fresh();
    const stores = open(schema, { clock: new VirtualClock(Date.parse('2026-11-30T01:02:03.456Z')) });
    await stores.migrate();
    await stores.pool.query(
      `INSERT INTO "${schema}".sessions (id, meta, version) VALUES ('s1', '{"version": 1, "id": "s1"}', 1)`,
    );
    await stores.pool.query(
      `INSERT INTO "${schema}".session_messages (session_id, generation, seq, message) VALUES ('s1', 0, 0, '{"id":"m1"}')`,
    );
    expect(await stores.sessionStore.quarantine('s1')).toEqual([
      `postgres:${schema}.session_quarantine/s1.corrupt-2026-11-30T010203.456Z`,
    ]);
    await stores.pool.query(
      `INSERT INTO "${schema}".sessions (id, meta, version) VALUES ('s1', 'null', NULL)`,
    );
    expect(await stores.sessionStore.quarantine('s1')).toEqual([
      `postgres:${schema}.session_quarantine/s1.corrupt-2026-11-30T010203.456Z-2`,
    ]);
    const { rows } = await stores.pool.query(
      `SELECT name, session_id, meta, version, messages FROM "${schema}".session_quarantine ORDER BY name`,
    );
    expect(rows).toEqual([
      {
        name: 's1.corrupt-2026-11-30T010203.456Z',
        session_id: 's1',
        meta: { version: 1, id: 's1' },
        version: 1,
        messages: [{ generation: 0, seq: 0, message: { id: 'm1' } }],
      },
      {
        name: 's1.corrupt-2026-11-30T010203.456Z-2',
        session_id: 's1',
        meta: null,
        version: null,
        messages: [],
      },
    ]);
  });

  it('forgets delivery ids older than the retention, and only those', async () => {
    if (!schemas) return;
    const schema = await schemas.fresh();
    const clock = new VirtualClock(0);
    const stores = open(schema, { clock, deliveryRetentionMs: 3_600_000 });
    expect(await stores.stateStore.markDelivered('old')).toBe(true);
    await clock.advance(1_800_000);
    expect(await stores.stateStore.markDelivered('recent')).toBe(true);
    await clock.advance(2_400_000);
    expect(await stores.stateStore.markDelivered('new')).toBe(true);
    const { rows } = await stores.pool.query(`SELECT id FROM "${schema}".deliveries ORDER BY id`);
    expect(rows.map((r) => r.id)).toEqual(['new', 'recent']);
    expect(await stores.stateStore.markDelivered('recent')).toBe(false);
    expect(await stores.stateStore.markDelivered('old')).toBe(true);
  });

  it('ignores, and logs, a chat map row that is not a binding', async () => {
    if (!schemas) return;
    const schema = await schemas.fresh();
    const { logger, lines } = capturingLogger();
    const stores = open(schema, { logger });
    await stores.stateStore.setChat('good', { sessionId: 's1', updatedAt: '2026-11-29T12:00:00.000Z' });
    await stores.pool.query(`INSERT INTO "${schema}".chats (chat, binding) VALUES ('bad', '{"session": 1}')`);
    expect(await stores.stateStore.getChat('bad')).toBeUndefined();
    expect(await stores.stateStore.listChats()).toEqual([
      ['good', { sessionId: 's1', updatedAt: '2026-11-29T12:00:00.000Z' }],
    ]);
    expect(lines.filter((l) => String(l.msg).includes('not a binding'))).toHaveLength(2);
  });
});

if (!schemas) it.skip(SKIP_REASON, () => undefined);
