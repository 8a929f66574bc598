/**
 * Control messages between replicas over PostgreSQL LISTEN/NOTIFY. Each
 * message is also written to `control_messages`, so a listener that lost
 * its connection catches up with what was published meanwhile (a stop must
 * not vanish in a reconnect), and a message too large for a NOTIFY payload
 * travels by reference. One dedicated connection listens; it reconnects
 * with backoff when it fails.
 */
import { type Clock, systemClock, type TimerHandle } from '../clock.js';
import type { PgClient } from '../store/postgres/db.js';
import { describeDbError, writeFailed } from '../store/postgres/db.js';
import { replicaId } from './lease.js';
import { deliver } from './memory-bus.js';
import { openClusterDb, type PostgresClusterOptions } from './postgres-common.js';
import type { ControlBus, ControlEnvelope, ControlHandler, ControlMessage } from './types.js';

/** Options of {@link createPostgresControlBus}. */
export type PostgresControlBusOptions = PostgresClusterOptions & {
  /** This replica's id (default: host, process id and a random suffix). */
  origin?: string;
  /** Time for envelopes, catch-up and reconnect backoff. */
  clock?: Clock;
  /** After a reconnect, messages at most this old are still delivered (default 30 s). */
  replayWindowMs?: number;
  /** How long published messages are kept for catch-up (default 60 s). */
  retentionMs?: number;
};

/** NOTIFY payloads must stay under 8000 bytes; larger messages go by reference. */
const INLINE_LIMIT = 7000;
const SEEN_LIMIT = 4096;
const MAX_BACKOFF_MS = 5000;
/** Catch-up reaches this far behind the moment the connection was lost (clock skew between replicas). */
const SKEW_MARGIN_MS = 2000;

interface StoredRow {
  id: string;
  chat: string;
  origin: string;
  body: ControlMessage;
  created_at: string;
}

interface Notice {
  id: string;
  chat: string;
  origin: string;
  sentAt: number;
  message: ControlMessage | null;
}

/**
 * A {@link ControlBus} shared by every replica using the same database and
 * schema. It holds one pool connection for LISTEN while subscribed.
 *
 * @example
 * const bus = createPostgresControlBus({ pool: stores.pool, schema: stores.schema, logger });
 * bus.subscribe(onControl);
 * await bus.ready();
 */
export function createPostgresControlBus(options: PostgresControlBusOptions): ControlBus {
  const db = openClusterDb(options);
  const { pool, t, logger, schema } = db;
  const origin = options.origin ?? replicaId();
  const clock = options.clock ?? systemClock;
  const replayWindow = Math.max(0, options.replayWindowMs ?? 30_000);
  const retention = Math.max(replayWindow, options.retentionMs ?? 60_000);
  const channel = `switchboard_control:${schema}`;
  const handlers = new Set<ControlHandler>();
  const seen = new Set<string>();
  let listener: PgClient | undefined;
  let attempt: Promise<void> | undefined;
  let startedAt = 0;
  let lostAt: number | undefined;
  let backoff = 100;
  let retry: TimerHandle | undefined;
  let nextPrune = Number.NEGATIVE_INFINITY;
  let closed = false;

  function accept(envelope: ControlEnvelope): void {
    if (closed || seen.has(envelope.id)) return;
    seen.add(envelope.id);
    // Sets iterate in insertion order: drop the oldest ids.
    if (seen.size > SEEN_LIMIT) for (const id of seen) if (seen.delete(id) && seen.size <= SEEN_LIMIT) break;
    deliver(handlers, envelope, logger);
  }

  const fromRow = (row: StoredRow): ControlEnvelope => ({
    id: String(row.id),
    chat: row.chat,
    origin: row.origin,
    message: row.body,
    sentAt: Number(row.created_at),
  });

  async function onNotice(payload: string): Promise<void> {
    const notice = JSON.parse(payload) as Notice;
    if (notice.message) {
      accept({
        id: notice.id,
        chat: notice.chat,
        origin: notice.origin,
        sentAt: notice.sentAt,
        message: notice.message,
      });
      return;
    }
    const { rows } = await pool.query<StoredRow>(
      `SELECT id, chat, origin, body, created_at FROM ${t('control_messages')} WHERE id = $1`,
      [notice.id],
    );
    if (rows[0]) accept(fromRow(rows[0]));
  }

  async function connect(): Promise<void> {
    await db.ready();
    const client = await pool.connect();
    const lost = (err?: Error) => {
      if (listener !== client) return;
      listener = undefined;
      lostAt = clock.now();
      logger.warn(
        { schema, err: err ? describeDbError(err) : 'connection ended' },
        'control bus listener lost',
      );
      client.release(err ?? new Error('control bus listener connection ended'));
      scheduleReconnect();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (n) => {
      if (n.channel !== channel || !n.payload) return;
      onNotice(n.payload).catch((err: unknown) =>
        logger.error({ schema, err: describeDbError(err) }, 'control message could not be read'),
      );
    });
    try {
      await client.query('SELECT set_config($1, $2, false)', [
        'application_name',
        `switchboard-bus ${origin}`.slice(0, 63),
      ]);
      await client.query(`LISTEN "${channel}"`);
    } catch (err) {
      discard(client, err);
      throw err;
    }
    if (closed) {
      discard(client);
      return;
    }
    listener = client;
    backoff = 100;
    // What was published while nobody here listened, within the replay window.
    const since = Math.max(
      lostAt === undefined ? startedAt : lostAt - SKEW_MARGIN_MS,
      clock.now() - replayWindow,
    );
    lostAt = undefined;
    const { rows } = await pool.query<StoredRow>(
      `SELECT id, chat, origin, body, created_at FROM ${t('control_messages')} WHERE created_at >= $1 ORDER BY id`,
      [since],
    );
    for (const row of rows) accept(fromRow(row));
  }

  /** Closes a listening connection for good; a late socket error on it must not go unhandled. */
  function discard(client: PgClient, err?: unknown): void {
    client.removeAllListeners();
    client.on('error', () => undefined);
    client.release(err instanceof Error ? err : true);
  }

  function start(): Promise<void> {
    if (attempt) return attempt;
    startedAt = clock.now();
    return reconnect();
  }

  function reconnect(): Promise<void> {
    retry = undefined;
    const current = connect();
    attempt = current;
    current.catch((err: unknown) => {
      logger.warn({ schema, err: describeDbError(err), retryInMs: backoff }, 'control bus could not listen');
      if (listener === undefined) scheduleReconnect();
    });
    return current;
  }

  function scheduleReconnect(): void {
    if (closed || retry !== undefined) return;
    lostAt ??= clock.now();
    retry = clock.setTimeout(() => void reconnect().catch(() => undefined), backoff);
    backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
  }

  return {
    origin,
    async publish(chat, message) {
      await db.ready();
      const body = JSON.stringify(message);
      const now = clock.now();
      try {
        if (now >= nextPrune) {
          nextPrune = now + 10_000;
          await pool.query(`DELETE FROM ${t('control_messages')} WHERE created_at < $1`, [now - retention]);
        }
        // Stored and announced in one statement: NOTIFY is sent when it commits.
        await pool.query(
          `WITH m AS (
             INSERT INTO ${t('control_messages')} (chat, origin, body, created_at)
             VALUES ($1::text, $2::text, $3::json, $4::bigint) RETURNING id)
           SELECT pg_notify($5::text, json_build_object('id', m.id::text, 'chat', $1::text, 'origin', $2::text,
             'sentAt', $4::bigint, 'message', CASE WHEN $6::boolean THEN $3::json END)::text) FROM m`,
          [chat, origin, body, now, channel, Buffer.byteLength(body) <= INLINE_LIMIT - chat.length - 200],
        );
      } catch (err) {
        throw writeFailed(logger, err, `a control message for chat ${chat}`, schema);
      }
    },
    subscribe(handler) {
      handlers.add(handler);
      void start().catch(() => undefined);
      return () => void handlers.delete(handler);
    },
    ready: () => start(),
    async close() {
      closed = true;
      handlers.clear();
      if (retry !== undefined) clock.clearTimeout(retry);
      retry = undefined;
      await attempt?.catch(() => undefined);
      const client = listener;
      listener = undefined;
      if (client) discard(client);
      if (db.owned) await pool.end();
    },
  };
}
