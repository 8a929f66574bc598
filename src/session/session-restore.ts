/**
 * What a session opened on a saved record takes back from it. Resumed, it
 * is the same session: its approvals, bill, waiting turn and dates go on.
 * Forked, it is a new one that shares only the conversation: no inherited
 * approvals, its own bill, nothing waiting.
 */
import type { ModelInfo } from '../provider/models.js';
import type { SessionRecord } from '../store/types.js';
import type { ContextWindowTracker } from './context-tracker.js';
import type { ConversationFrameState } from './conversation-frame.js';
import type { SessionGrants } from './grants.js';
import { type PausedTurnSlot, readPausedTurn } from './paused-turn.js';
import type { SessionPersistence } from './persistence.js';
import type { SessionMeter } from './session-meter.js';
import type { HistoryMessage } from './types.js';

/** The session's parts a record restores. */
export interface RestoreTargets {
  history: HistoryMessage[];
  frame: ConversationFrameState;
  grants: SessionGrants;
  tracker: ContextWindowTracker;
  usage: SessionMeter;
  persistence: SessionPersistence;
  paused: PausedTurnSlot;
  /** The limits of a model by name, for the record's model. */
  describe(model: string): ModelInfo;
}

/** The record's model, when the caller named none: its window sizes the tracker. */
export interface RestoredModel {
  model: string;
  info: ModelInfo;
}

/**
 * Restores `targets` from `record`: the whole conversation either way, and
 * with `resuming` the session's own state too. Returns the record's model
 * when `keepModel` is false and the record names one.
 */
export function restoreFromRecord(
  record: SessionRecord,
  targets: RestoreTargets,
  { resuming, keepModel }: { resuming: boolean; keepModel: boolean },
): RestoredModel | undefined {
  targets.history.push(...record.messages);
  // The system and tools this conversation's requests were built with, not today's rebuild.
  targets.frame.restore(record.frame, record.web);
  targets.grants.mode = record.permissionMode;
  let restored: RestoredModel | undefined;
  if (!keepModel && record.model) {
    // The saved model, not the provider's default: its window sizes the tracker.
    restored = { model: record.model, info: targets.describe(record.model) };
    targets.tracker.setMaxTokens(restored.info.contextWindow);
  }
  targets.tracker.restore(targets.history, {
    lastReportedTokens: record.lastReportedTokens,
    usedTokens: record.contextState?.usedTokens,
  });
  if (resuming) {
    targets.paused.current = readPausedTurn(record.pausedTurn);
    targets.grants.restore(record.allowedScopes ?? []);
    targets.usage.restore(record.usage); // a fork starts its own bill
    targets.persistence.markExisting(record.messages.length);
  }
  return restored;
}
