/**
 * A session store in memory, for tests and benchmarks. It keeps records and
 * messages as JSON text, as the file store does, so nothing a caller holds
 * aliases stored data and the same checks give the same outcomes.
 */
import { type Clock, systemClock } from '../clock.js';
import type { HistoryMessage } from '../vocabulary.js';
import { fileTimestamp } from './fs-util.js';
import { validateSessionId } from './ids.js';
import { checkMetaId, invalidData, refusal } from './refusals.js';
import { checkWritable, classifyMetaText, parseMessageLine, publicMeta } from './schema.js';
import {
  SESSION_SCHEMA_VERSION,
  type SessionMeta,
  type SessionRecord,
  type SessionStore,
  type StoreListEntry,
  type StoreOutcome,
} from './types.js';

interface RawSession {
  record: string;
  messages: string[];
}

/** The memory store, plus a way to plant raw (possibly broken) data in tests. */
export interface MemorySessionStore extends SessionStore {
  /** Stores raw record text and message lines under `id` exactly as given. */
  putRaw(id: string, raw: { record: string; messages?: string[] }): void;
  /** Raw record text and message lines of `id`, if any. */
  getRaw(id: string): { record: string; messages: string[] } | undefined;
}

/**
 * @example
 * const store = createMemorySessionStore();
 * await store.create({ ...meta, messages: [] });
 */
export function createMemorySessionStore(options: { clock?: Clock } = {}): MemorySessionStore {
  const clock = options.clock ?? systemClock;
  const sessions = new Map<string, RawSession>();
  const aside = new Map<string, RawSession>();

  const inspect = (id: string): StoreOutcome<SessionRecord> => {
    const raw = sessions.get(id);
    if (!raw) return { status: 'missing' };
    const where = `memory:${id}`;
    const meta = classifyMetaText(raw.record, id, where);
    if (meta.status !== 'valid') return meta;
    const count = meta.record.messageCount;
    if (raw.messages.length < count) {
      return {
        status: 'corrupt',
        reason: `holds ${raw.messages.length} of the ${count} committed messages (truncated)`,
        path: where,
      };
    }
    const messages: HistoryMessage[] = [];
    for (let i = 0; i < count; i++) {
      const message = parseMessageLine(raw.messages[i] ?? '');
      if (!message)
        return {
          status: 'corrupt',
          reason: `message ${i + 1} of ${count} committed is damaged`,
          path: where,
        };
      messages.push(message);
    }
    return { status: 'valid', record: { ...publicMeta(meta.record), messages } };
  };

  /** Ids whose stored lines this store wrote itself (or has checked), so appends skip re-parsing. */
  const verified = new Set<string>();

  const writable = (id: string): { meta: SessionMeta; raw: RawSession } => {
    const raw = sessions.get(id);
    const meta = raw ? classifyMetaText(raw.record, id, `memory:${id}`) : undefined;
    if (raw && meta?.status === 'valid' && verified.has(id)) return { meta: meta.record, raw };
    const found = inspect(id);
    if (found.status !== 'valid' || !raw)
      throw refusal(id, found.status === 'valid' ? { status: 'missing' } : found);
    verified.add(id);
    return { meta: found.record, raw };
  };

  const save = (meta: SessionMeta, lines: string[]): void => {
    const record = { ...publicMeta(meta), version: SESSION_SCHEMA_VERSION, messageCount: lines.length };
    sessions.set(meta.id, { record: JSON.stringify(record), messages: lines });
    verified.add(meta.id);
  };

  const toLines = (messages: HistoryMessage[]): string[] => messages.map((m) => JSON.stringify(m));

  const guard = (id: string, meta: SessionMeta, messages: HistoryMessage[]): void => {
    validateSessionId(id);
    checkMetaId(id, meta);
    const problem = checkWritable(meta, messages);
    if (problem) throw invalidData(id, problem);
  };

  return {
    async load(id) {
      validateSessionId(id);
      return inspect(id);
    },
    async list() {
      const out: StoreListEntry[] = [];
      for (const [id, raw] of sessions) {
        const meta = classifyMetaText(raw.record, id, `memory:${id}`);
        out.push({
          id,
          outcome: meta.status === 'valid' ? { ...meta, record: publicMeta(meta.record) } : meta,
        });
      }
      return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    },
    async create(record) {
      const { messages, ...meta } = record;
      guard(record.id, meta, messages);
      const found = inspect(record.id);
      if (found.status === 'corrupt' || found.status === 'unsupported') throw refusal(record.id, found);
      save(meta, toLines(messages));
    },
    async append(id, messages, meta) {
      guard(id, meta, messages);
      const { meta: current, raw } = writable(id);
      // Lines past the committed count are dropped, as the file store trims them.
      const lines = raw.messages.slice(0, current.messageCount);
      lines.push(...toLines(messages));
      save(meta, lines);
    },
    async replace(id, messages, meta) {
      guard(id, meta, messages);
      writable(id);
      save(meta, toLines(messages));
    },
    async updateMeta(meta) {
      guard(meta.id, meta, []);
      const { meta: current, raw } = writable(meta.id);
      save(meta, raw.messages.slice(0, current.messageCount));
    },
    async quarantine(id) {
      validateSessionId(id);
      const raw = sessions.get(id);
      if (!raw) return [];
      const name = `memory:${id}.json.corrupt-${fileTimestamp(clock.now())}`;
      sessions.delete(id);
      verified.delete(id);
      aside.set(name, raw);
      return [name];
    },
    async flush() {},
    putRaw(id, raw) {
      verified.delete(id);
      sessions.set(id, { record: raw.record, messages: [...(raw.messages ?? [])] });
    },
    getRaw(id) {
      const raw = sessions.get(id) ?? aside.get(id);
      return raw ? { record: raw.record, messages: [...raw.messages] } : undefined;
    },
  };
}
