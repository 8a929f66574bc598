/**
 * The project store's append-only event log, one JSONL file per session
 * (`<cwd>/.switchboard/logs/<id>.jsonl`). Each line carries only what
 * changed (the new messages, the meta fields that differ), so the log grows
 * by what a turn adds. A missing record is rebuilt by replaying it; a damaged
 * log is `corrupt` and never partly replayed.
 */
import { open, readFile, stat, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { Logger } from '../logger.js';
import type { HistoryMessage } from '../vocabulary.js';
import { atomicWrite, errorCode, moveAside } from './fs-util.js';
import { classifyMeta, historyMessageSchema, STORAGE_KEY } from './schema.js';
import type { SessionMeta, StoreOutcome } from './types.js';

const NEWLINE = 0x0a;

/** Meta fields set or removed by one event. */
export interface MetaDiff {
  set?: Record<string, unknown>;
  unset?: string[];
}

/** One line of the log. */
export type LogEvent =
  | { type: 'create'; meta: Record<string, unknown>; messages: HistoryMessage[] }
  | { type: 'append'; meta: MetaDiff; messages: HistoryMessage[] }
  | { type: 'replace'; meta: MetaDiff; messages: HistoryMessage[] }
  | { type: 'meta'; meta: MetaDiff };

const diffSchema = z.object({
  set: z.record(z.string(), z.unknown()).optional(),
  unset: z.array(z.string()).optional(),
});
const messagesSchema = z.array(historyMessageSchema);
const eventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('create'), meta: z.record(z.string(), z.unknown()), messages: messagesSchema }),
  z.object({ type: z.literal('append'), meta: diffSchema, messages: messagesSchema }),
  z.object({ type: z.literal('replace'), meta: diffSchema, messages: messagesSchema }),
  z.object({ type: z.literal('meta'), meta: diffSchema }),
]);

/** Keys never logged: derived (`messageCount`) or the store's own bookkeeping. */
const UNLOGGED = new Set(['messageCount', STORAGE_KEY]);

/** The meta as a create event carries it. */
export function loggedMeta(meta: SessionMeta): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(meta))
    if (!UNLOGGED.has(key) && value !== undefined) out[key] = value;
  return out;
}

/** The fields that differ between two metas (messageCount excluded). */
export function metaDiff(before: SessionMeta, after: SessionMeta): MetaDiff {
  const a = loggedMeta(before);
  const b = loggedMeta(after);
  const set: Record<string, unknown> = {};
  const unset: string[] = [];
  for (const [key, value] of Object.entries(b)) {
    if (JSON.stringify(a[key]) !== JSON.stringify(value)) set[key] = value;
  }
  for (const key of Object.keys(a)) if (!(key in b)) unset.push(key);
  return { ...(Object.keys(set).length ? { set } : {}), ...(unset.length ? { unset } : {}) };
}

/** True when a diff changes nothing. */
export function isEmptyDiff(diff: MetaDiff): boolean {
  return diff.set === undefined && diff.unset === undefined;
}

/** What replaying a log gives. */
export type ReplayOutcome =
  | { status: 'valid'; meta: SessionMeta; messages: HistoryMessage[]; logBytes: number }
  | Exclude<StoreOutcome<never>, { status: 'valid' }>;

function applyDiff(state: Record<string, unknown>, diff: MetaDiff): void {
  for (const [key, value] of Object.entries(diff.set ?? {})) if (key !== '__proto__') state[key] = value;
  for (const key of diff.unset ?? []) delete state[key];
}

/** The per-session event logs in one directory. */
export class EventLogs {
  constructor(readonly dir: string) {}

  /** Path of a session's log. */
  path(id: string): string {
    return join(this.dir, `${id}.jsonl`);
  }

  /** Size of a session's log in bytes, or -1 when it has none. */
  async size(id: string): Promise<number> {
    try {
      return (await stat(this.path(id))).size;
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return -1;
      throw err;
    }
  }

  /**
   * Appends one event after the first `committedBytes` (trimming what a crash
   * left past them) and returns the new length.
   */
  async append(id: string, event: LogEvent, committedBytes: number): Promise<number> {
    const path = this.path(id);
    const size = await this.size(id);
    if (size > committedBytes) await truncate(path, committedBytes);
    const line = Buffer.from(`${JSON.stringify(event)}\n`);
    const handle = await open(path, 'a');
    try {
      await handle.write(line);
    } finally {
      await handle.close();
    }
    return committedBytes + line.length;
  }

  /**
   * Appends `event` to a log whose record says it holds `committedBytes`.
   * When the log is gone or shorter than that, what is left is moved aside
   * and the log starts again from the committed state (`base`), so a rebuild
   * never replays a partial history.
   */
  async record(
    id: string,
    event: LogEvent,
    committedBytes: number | undefined,
    base: { meta: SessionMeta; messages: () => Promise<HistoryMessage[]>; now: number; logger: Logger },
  ): Promise<number> {
    const size = await this.size(id);
    if (committedBytes !== undefined && size >= committedBytes) return this.append(id, event, committedBytes);
    const messages = await base.messages();
    const aside = size >= 0 ? await moveAside(this.path(id), base.now) : undefined;
    base.logger.warn({ id, aside }, 'event log missing or shorter than its record: started again');
    const start = await this.reset(id, { type: 'create', meta: loggedMeta(base.meta), messages });
    return this.append(id, event, start);
  }

  /** Starts a log afresh with one event, atomically; returns its length. */
  async reset(id: string, event: LogEvent): Promise<number> {
    const line = Buffer.from(`${JSON.stringify(event)}\n`);
    await atomicWrite(this.path(id), line);
    return line.length;
  }

  /** Rebuilds a session from its log; any damage makes it `corrupt`. */
  async replay(id: string): Promise<ReplayOutcome> {
    const path = this.path(id);
    let buf: Buffer;
    try {
      buf = await readFile(path);
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return { status: 'missing' };
      return { status: 'corrupt', reason: `event log cannot be read (${errorCode(err) ?? err})`, path };
    }
    let meta: Record<string, unknown> | undefined;
    let messages: HistoryMessage[] = [];
    let pos = 0;
    let lineNo = 0;
    // Only newline-terminated lines count: a torn final line was never committed.
    for (let end = buf.indexOf(NEWLINE, pos); end >= 0; end = buf.indexOf(NEWLINE, pos)) {
      lineNo++;
      let data: unknown;
      try {
        data = JSON.parse(buf.toString('utf8', pos, end));
      } catch {
        return { status: 'corrupt', reason: `event log line ${lineNo} is unparsable`, path };
      }
      const parsed = eventSchema.safeParse(data);
      if (!parsed.success) {
        return { status: 'corrupt', reason: `event log line ${lineNo} is not a known event`, path };
      }
      const event = parsed.data as LogEvent;
      if ((event.type === 'create') !== (meta === undefined)) {
        const why = event.type === 'create' ? 'a second create event' : 'an event before create';
        return { status: 'corrupt', reason: `event log line ${lineNo} is ${why}`, path };
      }
      if (event.type === 'create') {
        meta = {};
        applyDiff(meta, { set: event.meta });
        messages = [...event.messages];
      } else if (meta !== undefined) {
        applyDiff(meta, event.meta);
        if (event.type === 'append') messages.push(...event.messages);
        if (event.type === 'replace') messages = [...event.messages];
      }
      pos = end + 1;
    }
    if (meta === undefined) return { status: 'missing' };
    meta.messageCount = messages.length;
    const outcome = classifyMeta(meta, id, path);
    if (outcome.status !== 'valid') return outcome;
    const { [STORAGE_KEY]: _omit, ...clean } = outcome.record;
    return { status: 'valid', meta: clean, messages, logBytes: pos };
  }
}
