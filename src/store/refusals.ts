/**
 * The errors a store throws when asked to write over a session it must not
 * touch, shared by the file and memory stores so both say the same thing.
 */
import { SwitchboardError } from '../errors.js';
import type { SessionMeta, StoreOutcome } from './types.js';

/** Why a write to `id` is refused, given the session's current outcome. */
export function refusal(
  id: string,
  outcome: Exclude<StoreOutcome<unknown>, { status: 'valid' }>,
): SwitchboardError {
  switch (outcome.status) {
    case 'missing':
      return new SwitchboardError(
        'SESSION_MISSING',
        `Session ${id} does not exist: create() it before appending to or updating it.`,
        { detail: { id } },
      );
    case 'corrupt':
      return new SwitchboardError(
        'SESSION_CORRUPT',
        `Session ${id} is corrupt (${outcome.reason})${outcome.path ? ` in ${outcome.path}` : ''}. It is left exactly as it is: move it aside with quarantine() and start a new session.`,
        { detail: { id, reason: outcome.reason, ...(outcome.path ? { path: outcome.path } : {}) } },
      );
    case 'unsupported':
      return new SwitchboardError(
        'SESSION_UNSUPPORTED',
        `Session ${id} was written with schema version ${JSON.stringify(outcome.version)}, but this switchboard reads version 1: run the switchboard version that wrote it, or start a new session.`,
        { detail: { id, version: outcome.version, ...(outcome.path ? { path: outcome.path } : {}) } },
      );
  }
}

/** Checks that meta written under `id` names that id. */
export function checkMetaId(id: string, meta: SessionMeta): void {
  if (meta.id !== id) {
    throw new SwitchboardError(
      'INVALID_NAME',
      `The meta passed for session ${id} names session ${JSON.stringify(meta.id)}: pass the meta of the session being written.`,
      { detail: { id } },
    );
  }
}

/** A write the store refuses because the data would not read back as a session. */
export function invalidData(id: string, problem: string): SwitchboardError {
  return new SwitchboardError(
    'STORE_WRITE_FAILED',
    `Refusing to save session ${id}: ${problem}. The data must match SessionMeta / HistoryMessage.`,
    { detail: { id } },
  );
}
