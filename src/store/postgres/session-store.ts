/**
 * Sessions in PostgreSQL: one `sessions` row per session (the small record as
 * jsonb, its schema version and the generation of its messages) and one
 * `session_messages` row per message. A turn inserts only its new rows;
 * compaction writes a new generation and drops the old one in the same
 * transaction. The outcomes and refusals are the lowdb store's, from the same
 * checks.
 */
import { type Clock, systemClock } from '../../clock.js';
import { type Logger, silentLogger } from '../../logger.js';
import type { HistoryMessage } from '../../vocabulary.js';
import { WriteChains } from '../fs-util.js';
import { validateSessionId } from '../ids.js';
import { checkMetaId, invalidData, refusal } from '../refusals.js';
import { checkWritable, classifyMeta, historyMessageSchema, publicMeta } from '../schema.js';
import {
  SESSION_SCHEMA_VERSION,
  type SessionMeta,
  type SessionRecord,
  type SessionStore,
  type StoreListEntry,
  type StoreOutcome,
} from '../types.js';
import { inTransaction, type PgClient, type PgPool, qualified, readFailed, writeFailed } from './db.js';
import { quarantineRows } from './quarantine.js';

/** Options of {@link PostgresSessionStore}. */
export interface PostgresSessionStoreOptions {
  pool: PgPool;
  schema: string;
  /** Resolves once the schema is migrated; awaited before the first query. */
  ready: () => Promise<void>;
  logger?: Logger;
  /** Time for quarantine names. */
  clock?: Clock;
}

interface SessionRow {
  meta: unknown;
  version: number | null;
  generation: number;
}

/** The committed state of a session whose messages were checked. */
interface Committed {
  generation: number;
  count: number;
}

type NotValid = Exclude<StoreOutcome<never>, { status: 'valid' }>;
type Checked =
  | { status: 'valid'; meta: SessionMeta; committed: Committed; messages?: HistoryMessage[] }
  | NotValid;

const READ_SNAPSHOT = 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY';

/** A {@link SessionStore} over PostgreSQL. Use {@link createPostgresStores} to make one. */
export class PostgresSessionStore implements SessionStore {
  readonly #pool: PgPool;
  readonly #schema: string;
  readonly #ready: () => Promise<void>;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #chains = new WriteChains();
  /** Sessions whose committed messages this store has checked, so a turn need not re-read history. */
  readonly #verified = new Map<string, Committed>();

  constructor(options: PostgresSessionStoreOptions) {
    this.#pool = options.pool;
    this.#schema = options.schema;
    this.#ready = options.ready;
    this.#logger = options.logger ?? silentLogger;
    this.#clock = options.clock ?? systemClock;
  }

  async load(id: string): Promise<StoreOutcome<SessionRecord>> {
    validateSessionId(id);
    await this.#ready();
    return this.#chains.run(id, async () => {
      let found: Checked;
      try {
        found = await inTransaction(this.#pool, (c) => this.#inspect(c, id, false, true), READ_SNAPSHOT);
      } catch (err) {
        throw readFailed(this.#logger, err, `session ${id}`, this.#schema);
      }
      if (found.status !== 'valid') {
        if (found.status !== 'missing') this.#logger.warn({ id, outcome: found }, 'session cannot be loaded');
        return found;
      }
      this.#verified.set(id, found.committed);
      const messages = found.messages ?? [];
      return { status: 'valid', record: { ...found.meta, messageCount: messages.length, messages } };
    });
  }

  async list(): Promise<StoreListEntry[]> {
    await this.#ready();
    // Writes already asked for are listed; later ones must not starve the listing.
    await this.#chains.settled();
    try {
      const { rows } = await this.#pool.query<SessionRow & { id: string }>(
        `SELECT id, meta, version FROM ${this.#t('sessions')} ORDER BY id COLLATE "C"`,
      );
      return rows.map((row) => ({ id: row.id, outcome: this.#classify(row.id, row) }));
    } catch (err) {
      throw readFailed(this.#logger, err, 'the session list', this.#schema);
    }
  }

  async create(record: SessionRecord): Promise<void> {
    const id = validateSessionId(record.id);
    const { messages, ...meta } = record;
    const problem = checkWritable(meta, messages);
    if (problem) throw invalidData(id, problem);
    await this.#ready();
    return this.#chains.run(id, () =>
      this.#transact(id, async (c) => {
        const found = await this.#inspect(c, id, true, false);
        if (found.status === 'corrupt' || found.status === 'unsupported') throw refusal(id, found);
        const fresh = {
          ...publicMeta(meta),
          version: SESSION_SCHEMA_VERSION,
          id,
          messageCount: messages.length,
        };
        const { rows } = await c.query<{ generation: number }>(
          `INSERT INTO ${this.#t('sessions')} AS s (id, meta, version, generation) VALUES ($1, $2::jsonb, $3, 0)
           ON CONFLICT (id) DO UPDATE SET meta = EXCLUDED.meta, version = EXCLUDED.version,
             generation = s.generation + 1, updated_at = now()
           RETURNING generation`,
          [id, JSON.stringify(fresh), SESSION_SCHEMA_VERSION],
        );
        const generation = rows[0]?.generation ?? 0;
        await this.#insertMessages(c, id, generation, 0, messages);
        await c.query(
          `DELETE FROM ${this.#t('session_messages')} WHERE session_id = $1 AND generation <> $2`,
          [id, generation],
        );
        return { generation, count: messages.length };
      }),
    );
  }

  append(id: string, messages: HistoryMessage[], meta: SessionMeta): Promise<void> {
    return this.#write(id, meta, messages, async (c, current, next) => {
      const count = current.count + messages.length;
      // Rows past the committed count belong to no one (the file store trims such lines too).
      await c.query(
        `DELETE FROM ${this.#t('session_messages')} WHERE session_id = $1 AND generation = $2 AND seq >= $3`,
        [id, current.generation, current.count],
      );
      await this.#insertMessages(c, id, current.generation, current.count, messages);
      await this.#saveMeta(c, { ...next, messageCount: count }, current.generation);
      return { generation: current.generation, count };
    });
  }

  replace(id: string, messages: HistoryMessage[], meta: SessionMeta): Promise<void> {
    return this.#write(id, meta, messages, async (c, current, next) => {
      const generation = current.generation + 1;
      await this.#insertMessages(c, id, generation, 0, messages);
      await this.#saveMeta(c, { ...next, messageCount: messages.length }, generation);
      await c.query(`DELETE FROM ${this.#t('session_messages')} WHERE session_id = $1 AND generation <> $2`, [
        id,
        generation,
      ]);
      return { generation, count: messages.length };
    });
  }

  async updateMeta(meta: SessionMeta): Promise<void> {
    const id = validateSessionId(meta.id);
    return this.#write(id, meta, [], async (c, current, next) => {
      await this.#saveMeta(c, { ...next, messageCount: current.count }, current.generation);
      return current;
    });
  }

  async quarantine(id: string): Promise<string[]> {
    validateSessionId(id);
    await this.#ready();
    return this.#chains.run(id, async () => {
      let moved: string[];
      try {
        moved = await inTransaction(this.#pool, (c) =>
          quarantineRows(c, this.#schema, id, this.#clock.now()),
        );
      } catch (err) {
        throw writeFailed(this.#logger, err, `quarantine of session ${id}`, this.#schema);
      } finally {
        this.#verified.delete(id);
      }
      if (moved.length) this.#logger.warn({ id, moved }, 'session rows moved to quarantine');
      return moved;
    });
  }

  flush(): Promise<void> {
    return this.#chains.flush();
  }

  #t(table: string): string {
    return qualified(this.#schema, table);
  }

  #where(id: string): string {
    return `postgres:${this.#schema}.sessions/${id}`;
  }

  /** Outcome of a sessions row: another schema version is `unsupported`, a bad shape `corrupt`. */
  #classify(id: string, row: Pick<SessionRow, 'meta' | 'version'>): StoreOutcome<SessionMeta> {
    const path = this.#where(id);
    if (row.version !== null && row.version !== SESSION_SCHEMA_VERSION) {
      return { status: 'unsupported', version: row.version, path };
    }
    const outcome = classifyMeta(row.meta, id, path);
    return outcome.status === 'valid' ? { status: 'valid', record: publicMeta(outcome.record) } : outcome;
  }

  /**
   * Reads a session's row (locked for writers) and checks its committed
   * messages, unless this store checked that very generation and count
   * before and the caller does not need them.
   */
  async #inspect(c: PgClient, id: string, forWrite: boolean, withMessages: boolean): Promise<Checked> {
    const { rows } = await c.query<SessionRow>(
      `SELECT meta, version, generation FROM ${this.#t('sessions')} WHERE id = $1${forWrite ? ' FOR UPDATE' : ''}`,
      [id],
    );
    const row = rows[0];
    if (!row) return { status: 'missing' };
    const meta = this.#classify(id, row);
    if (meta.status !== 'valid') return meta;
    const committed = { generation: row.generation, count: meta.record.messageCount };
    const known = this.#verified.get(id);
    if (!withMessages && known?.generation === committed.generation && known.count === committed.count) {
      return { status: 'valid', meta: meta.record, committed };
    }
    const found = await c.query<{ message: unknown }>(
      `SELECT message FROM ${this.#t('session_messages')}
       WHERE session_id = $1 AND generation = $2 AND seq < $3 ORDER BY seq`,
      [id, committed.generation, committed.count],
    );
    const path = this.#where(id);
    if (found.rows.length < committed.count) {
      return {
        status: 'corrupt',
        reason: `holds ${found.rows.length} of the ${committed.count} committed messages (truncated)`,
        path,
      };
    }
    const messages: HistoryMessage[] = [];
    for (const [i, { message }] of found.rows.entries()) {
      const parsed = historyMessageSchema.safeParse(message);
      if (!parsed.success) {
        return {
          status: 'corrupt',
          reason: `message ${i + 1} of ${committed.count} committed is damaged`,
          path,
        };
      }
      messages.push(parsed.data as HistoryMessage);
    }
    return { status: 'valid', meta: meta.record, committed, messages };
  }

  /** Common frame of append / replace / updateMeta: check, order, lock, refuse, report. */
  async #write(
    id: string,
    meta: SessionMeta,
    messages: HistoryMessage[],
    body: (c: PgClient, current: Committed, next: SessionMeta) => Promise<Committed>,
  ): Promise<void> {
    validateSessionId(id);
    checkMetaId(id, meta);
    const problem = checkWritable(meta, messages);
    if (problem) throw invalidData(id, problem);
    await this.#ready();
    return this.#chains.run(id, () =>
      this.#transact(id, async (c) => {
        const found = await this.#inspect(c, id, true, false);
        if (found.status !== 'valid') throw refusal(id, found);
        return body(c, found.committed, { ...publicMeta(meta), version: SESSION_SCHEMA_VERSION, id });
      }),
    );
  }

  /** Runs a write transaction; remembers what it committed, forgets on failure. */
  async #transact(id: string, body: (c: PgClient) => Promise<Committed>): Promise<void> {
    try {
      this.#verified.set(id, await inTransaction(this.#pool, body));
    } catch (err) {
      this.#verified.delete(id);
      throw writeFailed(this.#logger, err, `session ${id}`, this.#schema);
    }
  }

  async #insertMessages(
    c: PgClient,
    id: string,
    generation: number,
    from: number,
    messages: HistoryMessage[],
  ): Promise<void> {
    if (messages.length === 0) return;
    // One statement per turn, whatever its length; json keeps each message's text as written.
    await c.query(
      `INSERT INTO ${this.#t('session_messages')} (session_id, generation, seq, message)
       SELECT $1, $2, $3 + e.ord - 1, e.value FROM json_array_elements($4::json) WITH ORDINALITY AS e(value, ord)`,
      [id, generation, from, JSON.stringify(messages)],
    );
  }

  async #saveMeta(c: PgClient, meta: SessionMeta, generation: number): Promise<void> {
    await c.query(
      `UPDATE ${this.#t('sessions')} SET meta = $2::jsonb, version = $3, generation = $4, updated_at = now()
       WHERE id = $1`,
      [meta.id, JSON.stringify(meta), SESSION_SCHEMA_VERSION, generation],
    );
  }
}
