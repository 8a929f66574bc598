/**
 * Chat leases as rows of `chat_leases` (chat, owner, token, expiry). Taking
 * a lease is one upsert that only succeeds over an expired row, so of two
 * replicas racing for a chat exactly one wins, and a dead replica's lease
 * frees itself after its ttl. Expiry is compared in the injected clock's
 * milliseconds: replicas on different hosts need synchronised clocks (NTP),
 * with skew well below the ttl.
 */
import { readFailed, writeFailed } from '../store/postgres/db.js';
import { type ChatLeaseOptions, createChatLease } from './lease.js';
import { openClusterDb, type PostgresClusterOptions } from './postgres-common.js';
import type { ChatLease } from './types.js';

/** Options of {@link createPostgresChatLease}. */
export type PostgresChatLeaseOptions = PostgresClusterOptions & ChatLeaseOptions;

/**
 * Leases shared by every replica using the same database and schema.
 *
 * @example
 * const leases = createPostgresChatLease({ pool: stores.pool, schema: stores.schema, logger });
 * const lease = await leases.acquire('telegram:42', { ttlMs: 30_000 });
 */
export function createPostgresChatLease(options: PostgresChatLeaseOptions): ChatLease {
  const db = openClusterDb(options);
  const { pool, t, logger, schema } = db;
  return createChatLease(
    {
      async acquire(chat, owner, token, now, expiresAt) {
        await db.ready();
        try {
          // SET sees the row as it was: the old owner becomes the previous one.
          const taken = await pool.query<{ previous_owner: string | null }>(
            `INSERT INTO ${t('chat_leases')} AS l (chat, owner, token, acquired_at, expires_at)
             VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (chat) DO UPDATE SET previous_owner = l.owner, owner = EXCLUDED.owner,
               token = EXCLUDED.token, acquired_at = EXCLUDED.acquired_at, expires_at = EXCLUDED.expires_at
             WHERE l.expires_at <= EXCLUDED.acquired_at
             RETURNING previous_owner`,
            [chat, owner, token, now, expiresAt],
          );
          const row = taken.rows[0];
          return row ? { previousOwner: row.previous_owner ?? undefined } : undefined;
        } catch (err) {
          throw readFailed(logger, err, `the lease of chat ${chat}`, schema);
        }
      },
      async renew(chat, token, expiresAt) {
        await db.ready();
        try {
          const renewed = await pool.query(
            `UPDATE ${t('chat_leases')} SET expires_at = $3 WHERE chat = $1 AND token = $2`,
            [chat, token, expiresAt],
          );
          return renewed.rowCount === 1;
        } catch (err) {
          throw writeFailed(logger, err, `the lease of chat ${chat}`, schema);
        }
      },
      async release(chat, token, handBack) {
        await db.ready();
        try {
          // The row stays (expired) so the next holder learns who held the chat before.
          await pool.query(
            `UPDATE ${t('chat_leases')} SET expires_at = 0,
               owner = CASE WHEN $3 THEN COALESCE(previous_owner, owner) ELSE owner END
             WHERE chat = $1 AND token = $2`,
            [chat, token, handBack],
          );
        } catch (err) {
          // Not fatal: the row expires by itself after its ttl.
          logger.warn(
            { chat, err: err instanceof Error ? err.message : String(err) },
            'lease release failed',
          );
        }
      },
      async close() {
        if (db.owned) await pool.end();
      },
    },
    { ...options, logger },
  );
}
