/**
 * One provider call, collected: text deltas forwarded as they come, tool calls
 * gathered, and a watchdog that aborts a stream which sends nothing for
 * `idleTimeoutMs`. It never throws: a failure comes back with what had
 * arrived before it, so the turn can keep the partial reply.
 */
import type { Clock, TimerHandle } from '../clock.js';
import { SwitchboardError } from '../errors.js';
import type { Provider, ProviderEvent, ProviderRequest } from '../provider/types.js';
import type { TokenUsage } from './types.js';

/** A complete tool call from the model. */
export interface ToolUseCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/** What one provider call produced. */
export interface StreamCallResult {
  text: string;
  toolUses: ToolUseCall[];
  /** Set when the stream ended normally. */
  end?: { stopReason: string; usage: TokenUsage };
  /** Set when it did not: ABORTED, PROVIDER_STALLED or a PROVIDER_* error. */
  error?: SwitchboardError;
}

/** Options for {@link callProvider}. */
export interface StreamCallOptions {
  provider: Provider;
  request: Omit<ProviderRequest, 'signal'>;
  /** The turn's signal; aborting it aborts the HTTP stream. */
  signal: AbortSignal;
  clock: Clock;
  idleTimeoutMs: number;
  onText?: (text: string) => void;
}

function toSwitchboardError(err: unknown): SwitchboardError {
  if (err instanceof SwitchboardError) return err;
  return new SwitchboardError(
    'PROVIDER_ERROR',
    `The model request failed: ${(err as Error)?.message ?? String(err)}`,
    {
      cause: err,
    },
  );
}

/** Streams one request through `provider`; see {@link StreamCallResult}. */
export async function callProvider(options: StreamCallOptions): Promise<StreamCallResult> {
  const { clock, idleTimeoutMs, signal } = options;
  const result: StreamCallResult = { text: '', toolUses: [] };
  const controller = new AbortController();
  const onTurnAbort = () => controller.abort(signal.reason);
  if (signal.aborted) controller.abort(signal.reason);
  else signal.addEventListener('abort', onTurnAbort, { once: true });

  let stalled = false;
  let timer: TimerHandle | undefined;
  let rejectWatchdog: ((err: unknown) => void) | undefined;
  const watchdog = new Promise<never>((_, reject) => {
    rejectWatchdog = reject;
  });
  watchdog.catch(() => undefined);
  const arm = () => {
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = clock.setTimeout(() => {
      stalled = true;
      const err = new SwitchboardError(
        'PROVIDER_STALLED',
        `The model stopped sending for ${Math.round(idleTimeoutMs / 1000)} s, so the reply was cancelled. Send your message again.`,
      );
      controller.abort(err);
      rejectWatchdog?.(err);
    }, idleTimeoutMs);
  };
  const abortRace = new Promise<never>((_, reject) => {
    controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
  });
  abortRace.catch(() => undefined);

  let iterator: AsyncIterator<ProviderEvent> | undefined;
  try {
    iterator = options.provider
      .stream({ ...options.request, signal: controller.signal })
      [Symbol.asyncIterator]();
    for (;;) {
      arm();
      // Race the next event against the watchdog and the abort, so a provider
      // that ignores its signal cannot hold the turn.
      const step: IteratorResult<ProviderEvent> = await Promise.race([iterator.next(), watchdog, abortRace]);
      if (step.done) break;
      const event = step.value;
      if (event.type === 'text_delta') {
        result.text += event.text;
        options.onText?.(event.text);
      } else if (event.type === 'tool_use') {
        result.toolUses.push({ id: event.id, name: event.name, input: event.input });
      } else if (event.type === 'message_end') {
        result.end = { stopReason: event.stopReason, usage: event.usage };
      }
      // `progress` only proves the stream is alive: the watchdog is re-armed above.
    }
    if (!result.end) {
      result.error = new SwitchboardError(
        'PROVIDER_ERROR',
        'The model reply ended without finishing. Try again.',
      );
    }
  } catch (err) {
    if (stalled) {
      result.error = toSwitchboardError(controller.signal.reason);
    } else if (signal.aborted) {
      result.error = new SwitchboardError('ABORTED', 'The turn was stopped.', { cause: err });
    } else {
      result.error = toSwitchboardError(err);
    }
    delete result.end;
    // Let the provider release its connection; do not wait for it.
    void Promise.resolve(iterator?.return?.()).catch(() => undefined);
  } finally {
    if (timer !== undefined) clock.clearTimeout(timer);
    signal.removeEventListener('abort', onTurnAbort);
  }
  return result;
}
