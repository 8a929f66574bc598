/**
 * Schedules and chat settings in PostgreSQL (tables `schedules` and
 * `chat_settings`, migration 3), shared by replicas. The claim of a run is
 * one conditional UPDATE, so of the replicas woken for the same run exactly
 * one moves it on and runs it.
 */

import { type Logger, silentLogger } from '../logger.js';
import type { PgPool } from '../store/postgres/db.js';
import { qualified, readFailed, writeFailed } from '../store/postgres/db.js';
import type { ChatSettings, Schedule, ScheduleStore } from './types.js';

/** Options of {@link createPostgresScheduleStore}. */
export interface PostgresScheduleStoreOptions {
  pool: PgPool;
  schema: string;
  /** Resolves once the schema is migrated. */
  ready: () => Promise<void>;
  logger?: Logger;
}

/** A {@link ScheduleStore} over PostgreSQL. */
export function createPostgresScheduleStore(options: PostgresScheduleStoreOptions): ScheduleStore {
  const { pool, schema, ready } = options;
  const logger = options.logger ?? silentLogger;
  const t = (table: string) => qualified(schema, table);
  const read = async <R>(what: string, sql: string, values: unknown[]): Promise<R[]> => {
    await ready();
    try {
      return (await pool.query(sql, values)).rows as R[];
    } catch (err) {
      throw readFailed(logger, err, what, schema);
    }
  };
  const write = async (what: string, sql: string, values: unknown[]): Promise<number> => {
    await ready();
    try {
      return (await pool.query(sql, values)).rowCount ?? 0;
    } catch (err) {
      throw writeFailed(logger, err, what, schema);
    }
  };
  const row = (r: { body: Schedule; next_run_at: string }): Schedule => ({
    ...r.body,
    nextRunAt: Number(r.next_run_at),
  });
  return {
    async list(chat) {
      const rows = await read<{ body: Schedule; next_run_at: string }>(
        'schedules',
        chat === undefined
          ? `SELECT body, next_run_at FROM ${t('schedules')}`
          : `SELECT body, next_run_at FROM ${t('schedules')} WHERE chat = $1`,
        chat === undefined ? [] : [chat],
      );
      return rows.map(row);
    },
    async get(id) {
      const rows = await read<{ body: Schedule; next_run_at: string }>(
        'schedule',
        `SELECT body, next_run_at FROM ${t('schedules')} WHERE id = $1`,
        [id],
      );
      return rows[0] ? row(rows[0]) : undefined;
    },
    async add(schedule) {
      await write(
        'schedule',
        `INSERT INTO ${t('schedules')} (id, chat, next_run_at, body) VALUES ($1, $2, $3, $4)`,
        [schedule.id, schedule.chat, schedule.nextRunAt, JSON.stringify(schedule)],
      );
    },
    async remove(id) {
      return (await write('schedule', `DELETE FROM ${t('schedules')} WHERE id = $1`, [id])) > 0;
    },
    async advance(id, from, to) {
      const changed =
        to === undefined
          ? await write('schedule run', `DELETE FROM ${t('schedules')} WHERE id = $1 AND next_run_at = $2`, [
              id,
              from,
            ])
          : await write(
              'schedule run',
              `UPDATE ${t('schedules')} SET next_run_at = $3 WHERE id = $1 AND next_run_at = $2`,
              [id, from, to],
            );
      return changed > 0;
    },
    async chatSettings(chat) {
      const rows = await read<{ settings: ChatSettings }>(
        'chat settings',
        `SELECT settings FROM ${t('chat_settings')} WHERE chat = $1`,
        [chat],
      );
      return { ...rows[0]?.settings };
    },
    async setChatSettings(chat, settings) {
      await write(
        'chat settings',
        `INSERT INTO ${t('chat_settings')} (chat, settings) VALUES ($1, $2)
         ON CONFLICT (chat) DO UPDATE SET settings = EXCLUDED.settings`,
        [chat, JSON.stringify(settings)],
      );
    },
    async flush() {},
  };
}
