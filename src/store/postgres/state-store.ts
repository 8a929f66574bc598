/**
 * The bot core's own state in PostgreSQL, shared by every replica: the chat
 * map (`chats`), delivery ids already handled (`deliveries`, deduplicated by
 * the primary key so two replicas given the same update agree on who takes
 * it) and turns in flight (`active_turns`).
 */
import { type Clock, systemClock } from '../../clock.js';
import { type Logger, silentLogger } from '../../logger.js';
import { activeTurnSchema, chatBindingSchema } from '../schema.js';
import type { ActiveTurn, BotStateStore, ChatBinding } from '../types.js';
import { type PgPool, qualified, statementRunner } from './db.js';

/** Options of {@link createPostgresBotStateStore}. */
export interface PostgresBotStateStoreOptions {
  pool: PgPool;
  schema: string;
  /** Resolves once the schema is migrated; awaited before the first query. */
  ready: () => Promise<void>;
  logger?: Logger;
  /** Time of delivery records and of their pruning. */
  clock?: Clock;
  /** How long a delivery id is remembered (default 24 hours; platforms redeliver within minutes). */
  deliveryRetentionMs?: number;
  /** Least time between two prunings of old delivery ids (default 1 minute). */
  pruneIntervalMs?: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A {@link BotStateStore} over PostgreSQL. Every call is one statement, so
 * replicas never overwrite each other's changes.
 */
export function createPostgresBotStateStore(options: PostgresBotStateStoreOptions): BotStateStore {
  const { pool, schema, ready } = options;
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? systemClock;
  const retention = Math.max(1, options.deliveryRetentionMs ?? DAY_MS);
  const pruneEvery = Math.max(0, options.pruneIntervalMs ?? 60_000);
  const t = (table: string) => qualified(schema, table);
  const { run, flush } = statementRunner(ready, logger, schema);
  let nextPrune = Number.NEGATIVE_INFINITY;

  /** A stored binding, or undefined (logged) when the row is not one. */
  function binding(chat: string, value: unknown): ChatBinding | undefined {
    const parsed = chatBindingSchema.safeParse(value);
    if (parsed.success) return parsed.data as ChatBinding;
    logger.error({ chat, schema }, 'chat binding row is not a binding: ignoring it');
    return undefined;
  }

  async function prune(now: number): Promise<void> {
    if (now < nextPrune) return;
    nextPrune = now + pruneEvery;
    const removed = await pool.query(`DELETE FROM ${t('deliveries')} WHERE seen_at < $1`, [now - retention]);
    if (removed.rowCount) logger.debug({ removed: removed.rowCount }, 'old delivery ids pruned');
  }

  return {
    getChat: (chat) =>
      run('read', `the session of chat ${chat}`, async () => {
        const { rows } = await pool.query<{ binding: unknown }>(
          `SELECT binding FROM ${t('chats')} WHERE chat = $1`,
          [chat],
        );
        return rows[0] ? binding(chat, rows[0].binding) : undefined;
      }),
    setChat: (chat, value) =>
      run('write', `the session of chat ${chat}`, async () => {
        // Written only when the mapping changes, not each time a chat is touched.
        await pool.query(
          `INSERT INTO ${t('chats')} AS c (chat, binding) VALUES ($1, $2::jsonb)
           ON CONFLICT (chat) DO UPDATE SET binding = EXCLUDED.binding, updated_at = now()
           WHERE (c.binding->>'sessionId', c.binding->>'owner')
             IS DISTINCT FROM (EXCLUDED.binding->>'sessionId', EXCLUDED.binding->>'owner')`,
          [chat, JSON.stringify(value)],
        );
      }),
    listChats: () =>
      run('read', 'the chat map', async () => {
        const { rows } = await pool.query<{ chat: string; binding: unknown }>(
          `SELECT chat, binding FROM ${t('chats')} ORDER BY chat COLLATE "C"`,
        );
        const out: Array<[string, ChatBinding]> = [];
        for (const row of rows) {
          const value = binding(row.chat, row.binding);
          if (value) out.push([row.chat, value]);
        }
        return out;
      }),
    markDelivered: (deliveryId) =>
      run('write', `delivery ${deliveryId}`, async () => {
        const now = clock.now();
        await prune(now);
        // The primary key decides: of two replicas handed the same delivery, exactly one inserts it.
        const inserted = await pool.query(
          `INSERT INTO ${t('deliveries')} (id, seen_at) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING`,
          [deliveryId, now],
        );
        return inserted.rowCount === 1;
      }),
    beginTurn: (turn) =>
      run('write', `the turn of chat ${turn.chat}`, async () => {
        await pool.query(
          `INSERT INTO ${t('active_turns')} (chat, turn) VALUES ($1, $2::jsonb)
           ON CONFLICT (chat) DO UPDATE SET turn = EXCLUDED.turn, started_at = now()`,
          [turn.chat, JSON.stringify(turn)],
        );
      }),
    endTurn: (chat) =>
      run('write', `the turn of chat ${chat}`, async () => {
        await pool.query(`DELETE FROM ${t('active_turns')} WHERE chat = $1`, [chat]);
      }),
    activeTurns: () =>
      run('read', 'turns in flight', async () => {
        const { rows } = await pool.query<{ chat: string; turn: unknown }>(
          `SELECT chat, turn FROM ${t('active_turns')} ORDER BY started_at, chat COLLATE "C"`,
        );
        const out: ActiveTurn[] = [];
        for (const row of rows) {
          const parsed = activeTurnSchema.safeParse(row.turn);
          if (parsed.success) out.push(parsed.data as ActiveTurn);
          else logger.error({ chat: row.chat, schema }, 'active turn row is not a turn: ignoring it');
        }
        return out;
      }),
    flush,
  };
}
