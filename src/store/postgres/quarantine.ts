/**
 * Moving a session out of the way in PostgreSQL: its rows go, as they are,
 * into `session_quarantine` under a name like the file store's
 * `<id>.corrupt-<time>`, and the id reads as missing afterwards.
 */
import { fileTimestamp } from '../fs-util.js';
import { type PgClient, qualified } from './db.js';

/**
 * Moves the session row and message rows of `id` into the quarantine table,
 * inside the caller's transaction. Returns where they went
 * (`postgres:<schema>.session_quarantine/<name>`), or nothing when there
 * were no rows.
 */
export async function quarantineRows(
  c: PgClient,
  schema: string,
  id: string,
  now: number,
): Promise<string[]> {
  const t = (table: string) => qualified(schema, table);
  const locked = await c.query(`SELECT 1 FROM ${t('sessions')} WHERE id = $1 FOR UPDATE`, [id]);
  const orphans = await c.query(`SELECT 1 FROM ${t('session_messages')} WHERE session_id = $1 LIMIT 1`, [id]);
  if (locked.rowCount === 0 && orphans.rowCount === 0) return [];
  const base = `${id}.corrupt-${fileTimestamp(now)}`;
  let name = base;
  // A name already taken (two quarantines in one millisecond) gets -2, -3... as files do.
  for (let n = 2; ; n++) {
    const inserted = await c.query(
      `INSERT INTO ${t('session_quarantine')} (name, session_id, meta, version, generation, messages)
       SELECT $1, $2, s.meta, s.version, s.generation,
         (SELECT coalesce(json_agg(json_build_object('generation', m.generation, 'seq', m.seq,
            'message', m.message) ORDER BY m.generation, m.seq), '[]'::json)
          FROM ${t('session_messages')} m WHERE m.session_id = $2)
       FROM (SELECT 1) AS one LEFT JOIN ${t('sessions')} s ON s.id = $2
       ON CONFLICT (name) DO NOTHING`,
      [name, id],
    );
    if (inserted.rowCount === 1) break;
    name = `${base}-${n}`;
  }
  await c.query(`DELETE FROM ${t('session_messages')} WHERE session_id = $1`, [id]);
  await c.query(`DELETE FROM ${t('sessions')} WHERE id = $1`, [id]);
  return [`postgres:${schema}.session_quarantine/${name}`];
}
