/**
 * Where sessions and the bot's own state live. lowdb files by default; the
 * interfaces in `types.ts` are async so a networked store can replace them.
 */
import { join } from 'node:path';
import { EventLogs } from './event-log.js';
import { FileSessionStore, type SessionStoreOptions } from './file-store.js';
import type { SessionStore } from './types.js';

export { type BotStateStoreOptions, createBotStateStore, createMemoryBotStateStore } from './bot-state.js';
export {
  type ControlsStore,
  type ControlsStoreOptions,
  createControlsStore,
  createMemoryControlsStore,
} from './controls.js';
export type { SessionStoreOptions } from './file-store.js';
export { newSessionId, validateSessionId, validateSessionName } from './ids.js';
export { createMemorySessionStore, type MemorySessionStore } from './memory-store.js';
export * from './types.js';

/**
 * Sessions of one user (or one bot) in `dir`: per session a small lowdb
 * record `<id>.json` and an append-only `<id>.messages.jsonl`.
 *
 * @example
 * const store = createUserSessionStore('./data/sessions', { logger });
 * const found = await store.load(id);
 * if (found.status === 'valid') console.log(found.record.messages.length);
 */
export function createUserSessionStore(dir: string, options: SessionStoreOptions = {}): SessionStore {
  return new FileSessionStore(dir, options);
}

/**
 * Sessions of a project, under `<cwd>/.switchboard/sessions`, plus an
 * append-only event log per session in `<cwd>/.switchboard/logs` from which
 * a missing record is rebuilt.
 */
export function createProjectSessionStore(cwd: string, options: SessionStoreOptions = {}): SessionStore {
  const root = join(cwd, '.switchboard');
  return new FileSessionStore(join(root, 'sessions'), options, new EventLogs(join(root, 'logs')));
}
