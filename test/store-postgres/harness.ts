/**
 * One store backend as the shared contract suite sees it: the two stores, a
 * restart over the same data, and raw access for planting damaged data and
 * checking that nothing rewrote it.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createBotStateStore, createUserSessionStore } from '../../src/store/index.js';
import { createPostgresStores } from '../../src/store/postgres/index.js';
import type { BotStateStore, SessionStore } from '../../src/store/types.js';
import type { testSchemas } from './database.js';

/** Both stores of one backend instance. */
export interface Stores {
  sessions: SessionStore;
  state: BotStateStore;
}

export interface Harness extends Stores {
  /** A new instance over the same data, as after a restart (the old one is left open). */
  reopen(): Promise<Stores>;
  /** Stores `meta` (any JSON value) and `messages` for `id` as if someone else wrote them. */
  plant(id: string, meta: unknown, messages?: unknown[]): Promise<void>;
  /** The stored record of `id` exactly as stored, for "never overwritten" checks. */
  raw(id: string): Promise<string | undefined>;
  /**
   * The stored history of `id` as units (lines of the messages file; message
   * rows with their row version), each of which changes when it is rewritten.
   */
  history(id: string): Promise<string[]>;
  close(): Promise<void>;
}

const PLANTED_HEADER = JSON.stringify({ type: 'switchboard-messages', version: 1, epoch: 'planted' });

/** The lowdb files: a user session store and the bot state store in a temp directory. */
export async function lowdbHarness(dir: string): Promise<Harness> {
  const sessionsDir = join(dir, 'sessions');
  const stateDir = join(dir, 'state');
  const open = (): Stores => ({
    sessions: createUserSessionStore(sessionsDir),
    state: createBotStateStore(stateDir),
  });
  const opened: Stores[] = [open()];
  return {
    ...(opened[0] as Stores),
    async reopen() {
      const stores = open();
      opened.push(stores);
      return stores;
    },
    async plant(id, meta, messages = []) {
      await mkdir(sessionsDir, { recursive: true });
      await writeFile(join(sessionsDir, `${id}.json`), JSON.stringify(meta));
      const lines = [PLANTED_HEADER, ...messages.map((m) => JSON.stringify(m))];
      await writeFile(join(sessionsDir, `${id}.messages.jsonl`), lines.map((l) => `${l}\n`).join(''));
    },
    raw: (id) => readFile(join(sessionsDir, `${id}.json`), 'utf8').catch(() => undefined),
    async history(id) {
      const text = await readFile(join(sessionsDir, `${id}.messages.jsonl`), 'utf8').catch(() => '');
      return text.split('\n').filter((line) => line.length > 0);
    },
    async close() {
      for (const stores of opened) await Promise.all([stores.sessions.flush(), stores.state.flush()]);
    },
  };
}

/** PostgreSQL: both stores in a fresh schema, each instance with a pool of its own. */
export async function postgresHarness(schemas: ReturnType<typeof testSchemas>): Promise<Harness> {
  const schema = await schemas.fresh();
  const open = async () => {
    const stores = createPostgresStores({ pool: schemas.pool(), schema });
    await stores.migrate();
    return stores;
  };
  const first = await open();
  const direct = schemas.pool(2);
  const opened = [first];
  const t = (table: string) => `"${schema}"."${table}"`;
  return {
    sessions: first.sessionStore,
    state: first.stateStore,
    async reopen() {
      const stores = await open();
      opened.push(stores);
      return { sessions: stores.sessionStore, state: stores.stateStore };
    },
    async plant(id, meta, messages = []) {
      const version =
        typeof meta === 'object' && meta !== null && 'version' in meta && Number.isInteger(meta.version)
          ? (meta.version as number)
          : null;
      await direct.query(`DELETE FROM ${t('sessions')} WHERE id = $1`, [id]);
      await direct.query(`DELETE FROM ${t('session_messages')} WHERE session_id = $1`, [id]);
      await direct.query(
        `INSERT INTO ${t('sessions')} (id, meta, version, generation) VALUES ($1, $2::jsonb, $3, 0)`,
        [id, JSON.stringify(meta), version],
      );
      for (const [seq, message] of messages.entries()) {
        await direct.query(
          `INSERT INTO ${t('session_messages')} (session_id, generation, seq, message) VALUES ($1, 0, $2, $3::json)`,
          [id, seq, JSON.stringify(message)],
        );
      }
    },
    async raw(id) {
      const { rows } = await direct.query<{ meta: string; version: number | null; updated_at: Date }>(
        `SELECT meta::text AS meta, version, updated_at FROM ${t('sessions')} WHERE id = $1`,
        [id],
      );
      const row = rows[0];
      return row ? JSON.stringify([row.meta, row.version, row.updated_at.toISOString()]) : undefined;
    },
    async history(id) {
      // xmin is the transaction that wrote the row: it changes whenever a row is rewritten.
      const { rows } = await direct.query<{ unit: string }>(
        `SELECT generation || ':' || seq || ':' || xmin::text AS unit FROM ${t('session_messages')}
         WHERE session_id = $1 ORDER BY generation, seq`,
        [id],
      );
      return rows.map((r) => r.unit);
    },
    async close() {
      for (const stores of opened) await stores.close();
    },
  };
}
