/**
 * Compaction: replace the conversation with a model-written summary. The
 * sequence follows the seed: PreCompact hook (awaited), summarization
 * request, history replaced by one `[Context Summary]` message, tracking
 * reset, PostCompact hook with the summary. An empty summary, an error or an
 * abort leaves the history exactly as it was.
 */
import type { Clock } from '../clock.js';
import { SwitchboardError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Provider, ToolDefinition } from '../provider/types.js';
import type { ContextMeter } from './context-meter.js';
import { createMessage, toProviderMessages } from './history.js';
import { repairHistory } from './repair.js';
import { callProvider } from './stream-call.js';
import type { CompactEvent, HistoryMessage, SessionHooks } from './types.js';

/** The first line of the message that replaces a compacted conversation. */
export const SUMMARY_HEADER = '[Context Summary]';

/** What compaction needs from the session. */
export interface CompactionHost {
  history: HistoryMessage[];
  provider: Provider;
  model: string;
  maxTokens: number;
  system: string;
  tools: readonly ToolDefinition[];
  meter: ContextMeter;
  hooks: SessionHooks;
  clock: Clock;
  logger: Logger;
  idleTimeoutMs: number;
  /** The CLAUDE.md "Compact Instructions" section (trusted projects only). */
  compactInstructions: string | undefined;
}

/** Builds the summarization prompt: the base request, the focus, the project's instructions. */
export function summarizationPrompt(
  focus: string | undefined,
  compactInstructions: string | undefined,
): string {
  const parts = [
    'Summarize the conversation so far so that it can continue from your summary alone: the earlier messages will be removed.',
    'Keep the user goals and requests, decisions and their reasons, important facts, file paths, commands run and their results, code that still matters, open questions and the next steps.',
    'Write only the summary, with no preamble, and do not call any tools.',
  ];
  if (focus?.trim()) parts.push(`Focus of this summary: ${focus.trim()}`);
  if (compactInstructions)
    parts.push(`Compact Instructions from the project (CLAUDE.md):\n${compactInstructions}`);
  return parts.join('\n\n');
}

function failed(message: string, cause?: unknown, reason = 'failed'): SwitchboardError {
  return new SwitchboardError('COMPACTION_FAILED', message, {
    ...(cause === undefined ? {} : { cause }),
    detail: { reason },
  });
}

/**
 * Compacts `host.history` in place and returns the `compact` event payload;
 * throws COMPACTION_FAILED (history untouched) otherwise.
 */
export async function compactHistory(
  host: CompactionHost,
  trigger: CompactEvent['trigger'],
  focus: string | undefined,
  signal: AbortSignal,
): Promise<CompactEvent> {
  if (host.history.length === 0)
    throw failed('There is nothing to compact yet: the conversation is empty.', undefined, 'empty');
  const before = host.meter.tracker.getState();
  try {
    await host.hooks.PreCompact?.({ trigger, state: before });
  } catch (err) {
    throw failed(
      `Compaction stopped: the PreCompact hook failed (${(err as Error)?.message ?? err}).`,
      err,
      'hook',
    );
  }
  const prompt = createMessage(
    'user',
    [{ type: 'text', text: summarizationPrompt(focus, host.compactInstructions) }],
    host.clock,
  );
  const request = () =>
    callProvider({
      provider: host.provider,
      request: {
        model: host.model,
        system: host.system,
        messages: toProviderMessages([...host.history, prompt], host.model),
        // The API refuses tool blocks in history without tool definitions.
        tools: [...host.tools],
        maxTokens: host.maxTokens,
      },
      signal,
      clock: host.clock,
      idleTimeoutMs: host.idleTimeoutMs,
    });
  let call = await request();
  // A block the API refuses would fail the summary as it fails every turn: repair it and ask once more.
  if (call.error && repairHistory(host.history, call.error, host.model) !== undefined) call = await request();
  if (call.error) {
    const aborted = call.error.code === 'ABORTED';
    throw failed(
      aborted
        ? 'Compaction was stopped; the conversation was left as it was.'
        : `Compaction failed, the conversation was left as it was: ${call.error.message}`,
      call.error,
      aborted ? 'aborted' : 'provider',
    );
  }
  const stopReason = call.end?.stopReason;
  // A summary cut at the output limit (or refused, or paused) would replace the
  // whole conversation with a fragment: only one that ended normally is taken.
  if (stopReason !== 'end_turn' && stopReason !== 'stop_sequence')
    throw failed(
      `Compaction failed: the summary did not finish (stop reason ${stopReason}); the conversation was left as it was.`,
      undefined,
      'incomplete-summary',
    );
  const summary = call.text.trim();
  if (!summary)
    throw failed(
      'Compaction failed: the model returned an empty summary; the conversation was left as it was.',
      undefined,
      'empty-summary',
    );

  const summaryMessage = createMessage(
    'user',
    [{ type: 'text', text: `${SUMMARY_HEADER}\n${summary}` }],
    host.clock,
    {
      kind: 'summary',
    },
  );
  host.history.splice(0, host.history.length, summaryMessage);
  const after = host.meter.tracker.reset(host.history);
  try {
    await host.hooks.PostCompact?.({ trigger, summary, state: after });
  } catch (err) {
    // The history is already replaced; a failing hook must not undo a good compaction.
    host.logger.error({ err }, 'PostCompact hook failed');
  }
  return { trigger, before, after };
}
