import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, type Logger } from '../../src/logger.js';
import type { HistoryMessage } from '../../src/session/types.js';
import { SESSION_SCHEMA_VERSION, type SessionMeta, type SessionRecord } from '../../src/store/types.js';

/** Temp directories made by a test file; call `cleanup()` in afterEach. */
export function tempDirs() {
  const made: string[] = [];
  return {
    async make(): Promise<string> {
      const dir = await mkdtemp(join(tmpdir(), 'switchboard-store-'));
      made.push(dir);
      return dir;
    },
    async cleanup(): Promise<void> {
      await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
    },
  };
}

/** A logger whose lines (parsed) land in `lines`. */
export function capturingLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({
    level: 'debug',
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  return { logger, lines };
}

let seq = 0;

/** A history message with `text`. */
export function message(text: string, role: 'user' | 'assistant' = 'user'): HistoryMessage {
  seq++;
  return {
    id: `m${seq}`,
    role,
    content: [{ type: 'text', text }],
    createdAt: '2026-11-29T12:00:00.000Z',
    state: 'complete',
  };
}

/** Meta for session `id` with `count` messages. */
export function meta(id: string, count = 0, extra: Partial<SessionMeta> = {}): SessionMeta {
  return {
    version: SESSION_SCHEMA_VERSION,
    id,
    createdAt: '2026-11-29T12:00:00.000Z',
    updatedAt: '2026-11-29T12:00:00.000Z',
    permissionMode: 'default',
    contextState: { maxTokens: 200_000, usedTokens: 10, usedPercentage: 0.005, remainingPercentage: 99.995 },
    messageCount: count,
    ...extra,
  };
}

/** A whole record for session `id` with `messages`. */
export function record(
  id: string,
  messages: HistoryMessage[],
  extra: Partial<SessionMeta> = {},
): SessionRecord {
  return { ...meta(id, messages.length, extra), messages };
}
