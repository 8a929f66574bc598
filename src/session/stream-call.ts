/**
 * One provider call, collected: text deltas forwarded as they come, tool calls
 * gathered, and a watchdog that aborts a stream which sends nothing for
 * `idleTimeoutMs`. It never throws: a failure comes back with what had
 * arrived before it, so the turn can keep the partial reply.
 */
import type { Clock, TimerHandle } from '../clock.js';
import { SwitchboardError } from '../errors.js';
import type { Provider, ProviderEvent, ProviderRequest, RefusalDetails } from '../provider/types.js';
import type { ApiBlock, ContentBlock, TokenUsage } from './types.js';

/** A complete tool call from the model. */
export interface ToolUseCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/** What one provider call produced. */
export interface StreamCallResult {
  /** The reply text (every text block, joined). */
  text: string;
  /** Every content block in the order the model wrote it, thinking included, byte for byte. */
  content: ContentBlock[];
  toolUses: ToolUseCall[];
  /** Tool calls cut off at the output limit: never run, never sent back. */
  cutToolUses: Array<{ id: string; name: string }>;
  /** Set when the stream ended normally. */
  end?: { stopReason: string; usage: TokenUsage; refusal?: RefusalDetails };
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
  /** The visible thinking of the block being written so far: the progress note the model writes between tool calls. */
  onThinking?: (noteSoFar: string) => void;
  /** The citations of a text block that just ended (web search results, documents), as the API sent them. */
  onCitations?: (citations: readonly ApiBlock[]) => void;
  /** A finished block other than text and client tool calls (server tool calls and results among them). */
  onBlock?: (block: ApiBlock) => void;
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
  const result: StreamCallResult = { text: '', content: [], toolUses: [], cutToolUses: [] };
  // The text block being written, and the API's index for it: a new index is a new block.
  let textBlock: { type: 'text'; text: string; citations?: ApiBlock[] } | undefined;
  let textIndex: number | undefined;
  let note = '';
  const controller = new AbortController();
  const onTurnAbort = () => controller.abort(signal.reason);
  if (signal.aborted) controller.abort(signal.reason);
  else signal.addEventListener('abort', onTurnAbort, { once: true });

  let stalled = false;
  // Why the wait for the next event was cut short (a stall or an abort); the
  // wait in progress, if any, is rejected at once through `interrupt`.
  let interruption: { reason: unknown } | undefined;
  let interrupt: ((reason: unknown) => void) | undefined;
  const interruptWith = (reason: unknown) => {
    interruption ??= { reason };
    interrupt?.(interruption.reason);
  };
  controller.signal.addEventListener('abort', () => interruptWith(controller.signal.reason), { once: true });
  if (controller.signal.aborted) interruptWith(controller.signal.reason);

  // One watchdog timer per call, not one per event: each event only records
  // when the wait for the next one began, and the timer, when it fires early,
  // re-arms itself for the rest of the idle time. It fires at the same moment
  // a timer re-armed on every event would.
  let waitingSince = clock.now();
  let timer: TimerHandle | undefined;
  const onWatchdog = () => {
    const left = waitingSince + idleTimeoutMs - clock.now();
    if (left > 0) {
      timer = clock.setTimeout(onWatchdog, left);
      return;
    }
    timer = undefined;
    stalled = true;
    const err = new SwitchboardError(
      'PROVIDER_STALLED',
      `The model stopped sending for ${Math.round(idleTimeoutMs / 1000)} s, so the reply was cancelled. Send your message again.`,
    );
    controller.abort(err);
    interruptWith(err);
  };
  const arm = () => {
    waitingSince = clock.now();
    timer ??= clock.setTimeout(onWatchdog, idleTimeoutMs);
  };
  /** The next event, or a rejection as soon as the call stalls or is aborted, so a provider that ignores its signal cannot hold the turn. */
  const nextEvent = (it: AsyncIterator<ProviderEvent>) =>
    new Promise<IteratorResult<ProviderEvent>>((resolve, reject) => {
      it.next().then(resolve, reject);
      if (interruption) reject(interruption.reason);
      else interrupt = reject;
    });

  let iterator: AsyncIterator<ProviderEvent> | undefined;
  try {
    iterator = options.provider
      .stream({ ...options.request, signal: controller.signal })
      [Symbol.asyncIterator]();
    for (;;) {
      arm();
      const step = await nextEvent(iterator);
      interrupt = undefined;
      if (step.done) break;
      const event = step.value;
      if (event.type === 'text_delta') {
        if (!textBlock || (event.index !== undefined && event.index !== textIndex)) {
          textBlock = { type: 'text', text: '' };
          textIndex = event.index;
          result.content.push(textBlock);
        }
        textBlock.text += event.text;
        result.text += event.text;
        options.onText?.(event.text);
      } else if (event.type === 'thinking_delta') {
        note += event.text;
        options.onThinking?.(note);
      } else if (event.type === 'block') {
        textBlock = undefined;
        note = '';
        result.content.push(event.block);
        if (event.block.type === 'api') options.onBlock?.(event.block.block);
      } else if (event.type === 'citations') {
        if (textBlock && textIndex === event.index) textBlock.citations = [...event.citations];
        options.onCitations?.(event.citations);
      } else if (event.type === 'tool_use') {
        textBlock = undefined;
        const call = { id: event.id, name: event.name, input: event.input };
        result.toolUses.push(call);
        result.content.push({ type: 'tool_use', ...call, ...(event.caller ? { caller: event.caller } : {}) });
      } else if (event.type === 'tool_use_cut') {
        result.cutToolUses.push({ id: event.id, name: event.name });
      } else if (event.type === 'message_end') {
        result.end = {
          stopReason: event.stopReason,
          usage: event.usage,
          ...(event.refusal ? { refusal: event.refusal } : {}),
        };
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
