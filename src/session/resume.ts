/**
 * Loading a saved session for resume or fork, with the store's outcome
 * turned into an error the caller can branch on (`status`).
 */
import { SwitchboardError } from '../errors.js';
import type { SessionRecord, SessionStore } from '../store/types.js';

/** Why a saved session could not be loaded. */
export type SessionLoadStatus = 'missing' | 'corrupt' | 'unsupported';

/**
 * `session.ready` rejects with this when `resumeSessionId` names a session
 * that is missing, corrupt or of another version. `status` (also in
 * `detail.status`) says which.
 */
export class SessionLoadError extends SwitchboardError {
  readonly status: SessionLoadStatus;

  constructor(status: SessionLoadStatus, message: string, detail: Record<string, unknown> = {}) {
    const code =
      status === 'missing'
        ? 'SESSION_MISSING'
        : status === 'corrupt'
          ? 'SESSION_CORRUPT'
          : 'SESSION_UNSUPPORTED';
    super(code, message, { detail: { ...detail, status } });
    this.status = status;
  }
}

/** Loads `id` from `store`, or throws {@link SessionLoadError}. */
export async function loadSessionRecord(store: SessionStore | undefined, id: string): Promise<SessionRecord> {
  if (!store) {
    throw new SessionLoadError(
      'missing',
      `Cannot resume session "${id}": this session has no store to load it from.`,
      {
        id,
      },
    );
  }
  const outcome = await store.load(id);
  switch (outcome.status) {
    case 'valid':
      return outcome.record;
    case 'missing':
      throw new SessionLoadError(
        'missing',
        `There is no saved session "${id}". Use /sessions to list them.`,
        { id },
      );
    case 'corrupt':
      throw new SessionLoadError(
        'corrupt',
        `The saved session "${id}" is damaged (${outcome.reason}) and was left untouched. Start a new one with /new.`,
        { id, reason: outcome.reason, ...(outcome.path ? { path: outcome.path } : {}) },
      );
    case 'unsupported':
      throw new SessionLoadError(
        'unsupported',
        `The saved session "${id}" was written by another version of switchboard (schema ${String(outcome.version)}) and cannot be resumed here.`,
        { id, version: outcome.version, ...(outcome.path ? { path: outcome.path } : {}) },
      );
  }
}
