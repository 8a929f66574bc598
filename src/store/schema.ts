/**
 * What a stored session looks like, checked with zod on every read (so a file
 * that is JSON but not a session is `corrupt`, not a crash later) and on every
 * write (so the store never writes what it could not read back).
 */
import { z } from 'zod';
import type { HistoryMessage } from '../vocabulary.js';
import type { SessionMeta, StoreOutcome } from './types.js';
import { SESSION_SCHEMA_VERSION } from './types.js';

const KNOWN_BLOCK_TYPES = new Set(['text', 'image', 'document', 'tool_use', 'tool_result']);

const knownBlockSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text'), text: z.string() }),
  z.looseObject({ type: z.literal('image'), mediaType: z.string(), data: z.string() }),
  z.looseObject({
    type: z.literal('document'),
    mediaType: z.literal('application/pdf'),
    data: z.string(),
    title: z.string().optional(),
  }),
  z.looseObject({
    type: z.literal('tool_use'),
    id: z.string(),
    name: z.string(),
    input: z.record(z.string(), z.unknown()),
  }),
  z.looseObject({
    type: z.literal('tool_result'),
    toolUseId: z.string(),
    content: z.string(),
    images: z.array(z.looseObject({ mediaType: z.string(), data: z.string() })).optional(),
    isError: z.boolean().optional(),
  }),
]);

/**
 * Known block types are checked field by field; a block type added to the
 * contract later still stores and loads, so an additive change to
 * ContentBlock cannot make sessions unsavable.
 */
const contentBlockSchema = z.union([
  knownBlockSchema,
  z.looseObject({ type: z.string().refine((type) => !KNOWN_BLOCK_TYPES.has(type)) }),
]);

/** One history message (a line of a messages file). Unknown extra keys are kept. */
export const historyMessageSchema = z.looseObject({
  id: z.string(),
  role: z.enum(['user', 'assistant']),
  content: z.array(contentBlockSchema),
  createdAt: z.string(),
  state: z.enum(['complete', 'interrupted']).optional(),
  kind: z.enum(['summary', 'notice', 'context', 'continue']).optional(),
  author: z.string().optional(),
});

const contextStateSchema = z.looseObject({
  maxTokens: z.number(),
  usedTokens: z.number(),
  usedPercentage: z.number(),
  remainingPercentage: z.number(),
});

/** A chat key's binding (bot state), as every store writes it. */
export const chatBindingSchema = z.looseObject({
  sessionId: z.string(),
  owner: z.string().optional(),
  updatedAt: z.string(),
});

/** A turn in flight (bot state), as every store writes it. */
export const activeTurnSchema = z.looseObject({
  chat: z.string(),
  sessionId: z.string(),
  startedAt: z.string(),
  replyMessageId: z.string().optional(),
});

const tokenCount = z.number().int().nonnegative();
const usageTotalsSchema = z.looseObject({
  calls: tokenCount,
  inputTokens: tokenCount,
  cacheWrite5mTokens: tokenCount,
  cacheWrite1hTokens: tokenCount,
  cacheReadTokens: tokenCount,
  outputTokens: tokenCount,
  webSearches: tokenCount.optional(),
});

/** The usage ledger: `days` of `YYYY-MM-DD` -> model -> totals (with the long-prompt part). */
const usageLedgerSchema = z.looseObject({
  days: z.record(
    z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    z.record(z.string(), usageTotalsSchema.extend({ long: usageTotalsSchema.optional() })),
  ),
  transcription: z
    .record(
      z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
      z.record(z.string(), z.looseObject({ notes: z.number(), seconds: z.number() })),
    )
    .optional(),
});

/** A session record (everything but the messages). Unknown extra keys are kept. */
export const sessionMetaSchema = z.looseObject({
  version: z.number(),
  id: z.string(),
  name: z.string().optional(),
  owner: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
  model: z.string().optional(),
  permissionMode: z.enum(['plan', 'default', 'acceptEdits', 'bypassPermissions']),
  contextState: contextStateSchema,
  lastReportedTokens: z.number().optional(),
  messageCount: z.number().int().nonnegative(),
  allowedScopes: z.array(z.string()).optional(),
  forkedFrom: z.string().optional(),
  usage: usageLedgerSchema.optional(),
  frame: z.looseObject({ system: z.string(), tools: z.string(), mode: z.string() }).optional(),
  web: z.literal('off').optional(),
  pausedTurn: z.record(z.string(), z.unknown()).optional(),
});

/** Bookkeeping the file stores keep inside the record file, never shown to callers. */
export interface StorageInfo {
  /** Matches the header line of the messages file this record describes. */
  epoch: string;
  /** Bytes of the project event log that this record reflects. */
  logBytes?: number;
}

const storageInfoSchema = z.object({
  epoch: z.string(),
  logBytes: z.number().int().nonnegative().optional(),
});

/** The key under which {@link StorageInfo} sits in a record file. */
export const STORAGE_KEY = '_store';

/** A record as stored: the meta plus the store's bookkeeping. */
export type StoredMeta = SessionMeta & { [STORAGE_KEY]?: StorageInfo };

function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'does not match the session schema';
  const at = issue.path.length ? issue.path.join('.') : 'record';
  return `${at}: ${issue.message}`;
}

/**
 * Classifies parsed JSON as a session record of `expectedId`: `unsupported`
 * for another schema version, `corrupt` for anything that is not a session
 * record, else `valid`.
 */
export function classifyMeta(data: unknown, expectedId: string, path?: string): StoreOutcome<StoredMeta> {
  const where = path === undefined ? {} : { path };
  if (typeof data !== 'object' || data === null || Array.isArray(data) || !('version' in data)) {
    return { status: 'corrupt', reason: 'not a session record (no version field)', ...where };
  }
  const version = (data as { version: unknown }).version;
  if (version !== SESSION_SCHEMA_VERSION) return { status: 'unsupported', version, ...where };
  const parsed = sessionMetaSchema.safeParse(data);
  if (!parsed.success) {
    return { status: 'corrupt', reason: `not a session record: ${describeIssue(parsed.error)}`, ...where };
  }
  if (parsed.data.id !== expectedId) {
    return {
      status: 'corrupt',
      reason: `record id ${JSON.stringify(parsed.data.id)} does not match its file (${expectedId})`,
      ...where,
    };
  }
  const storage = (data as Record<string, unknown>)[STORAGE_KEY];
  if (storage !== undefined && !storageInfoSchema.safeParse(storage).success) {
    return { status: 'corrupt', reason: `${STORAGE_KEY}: malformed storage information`, ...where };
  }
  return { status: 'valid', record: parsed.data as StoredMeta };
}

/** Parses text as JSON and classifies it; unparsable text is `corrupt`. */
export function classifyMetaText(text: string, expectedId: string, path?: string): StoreOutcome<StoredMeta> {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return {
      status: 'corrupt',
      reason: text.length === 0 ? 'empty file' : `unparsable JSON (${why})`,
      ...(path === undefined ? {} : { path }),
    };
  }
  return classifyMeta(data, expectedId, path);
}

/** Parses one message line; undefined when it is not a history message. */
export function parseMessageLine(line: string): HistoryMessage | undefined {
  let data: unknown;
  try {
    data = JSON.parse(line);
  } catch {
    return undefined;
  }
  const parsed = historyMessageSchema.safeParse(data);
  return parsed.success ? (parsed.data as HistoryMessage) : undefined;
}

/**
 * The meta alone: without the store's bookkeeping (before it reaches a
 * caller) and without `messages` (a whole SessionRecord passed as meta must
 * not copy the history into the small record).
 */
export function publicMeta(stored: StoredMeta): SessionMeta {
  const { [STORAGE_KEY]: _omit, ...meta } = stored;
  if ('messages' in meta) delete (meta as { messages?: unknown }).messages;
  return meta;
}

/**
 * Checks meta and messages a caller asks to write, so a bad value fails now
 * with a clear message instead of making the session unreadable later.
 * Returns a problem description, or undefined when all is well.
 */
export function checkWritable(meta: SessionMeta, messages: readonly HistoryMessage[]): string | undefined {
  const m = sessionMetaSchema.safeParse(meta);
  if (!m.success) return `meta ${describeIssue(m.error)}`;
  for (let i = 0; i < messages.length; i++) {
    const r = historyMessageSchema.safeParse(messages[i]);
    if (!r.success) return `message ${i} ${describeIssue(r.error)}`;
  }
  return undefined;
}
