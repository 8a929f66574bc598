/**
 * The one funnel every outbound call of an adapter passes through: the
 * contract's {@link OutboundCalls} (every method of `ChatAdapter` that is not
 * its self-description or lifecycle), each wrapped in place to go through an
 * {@link OutboundHook}, as grammY's `api.config.use` puts one transformer
 * around every Bot API method instead of patching a list of them.
 *
 * Design decision (where the funnel sits): at the adapter contract, not
 * inside each adapter's SDK client. The contract is where the core's calls
 * have one meaning on every platform: one `send` is one message the outbox
 * scheduled, its 429 is the `RateLimitError` the scheduler waits out, and
 * `sendFile` is one upload whether Telegram makes it in one request or Slack
 * in three. It needs nothing from an adapter, so a new platform is counted
 * the day it implements the contract, where a hook threaded into each SDK
 * (grammY's transformer, Slack's and Discord's request paths) would be one
 * more thing every adapter must remember: the kind of list that missed
 * `sendFile` before. It cannot miss a call: the methods it walks are
 * {@link OUTBOUND_METHODS}, which the type checker holds equal to the
 * contract's outbound methods, and a method added to `ChatAdapter` is
 * outbound unless it is named an `AdapterSelfMethod`. The one call the core
 * makes that is not a method, answering an event through its `respond`,
 * passes the same hook: the funnel wraps the sink `start` is given. What it
 * does not see are an SDK's own retries inside one call (grammY's
 * auto-retry, which the outbox's calls bypass anyway), the platform requests
 * of start-up, and what an adapter does unasked (answering a button the core
 * left unanswered past its deadline).
 */
import type { ChatAdapter, ChatEvent } from '../bot/adapter-contract.js';
import {
  OUTBOUND_METHODS,
  type OutboundCalls,
  type OutboundHook,
  type OutboundMethod,
} from '../bot/outbound-calls.js';

export type { OutboundCall, OutboundCallName, OutboundHook } from '../bot/outbound-calls.js';

type AnyCall = (...args: unknown[]) => Promise<unknown>;

/** Every outbound method, walked by {@link interceptOutbound}. */
export const outboundMethods = Object.keys(OUTBOUND_METHODS) as OutboundMethod[];

/**
 * Routes every outbound call of `adapter` through `hook`, and the `respond`
 * of every event it hands the core, and returns the same adapter object, so
 * its identity and any members beyond the contract (the console's
 * `inputEnded`, Telegram's `features`) stay what they were. An optional call
 * the adapter lacks stays absent: the core still learns it cannot upload or
 * open threads there. Intercepting again puts the new hook outside the
 * earlier one, as grammY runs the transformer installed last first.
 */
export function interceptOutbound<A extends ChatAdapter>(adapter: A, hook: OutboundHook): A {
  const { platform } = adapter;
  const calls = adapter as unknown as Record<keyof OutboundCalls, AnyCall | undefined>;
  for (const method of outboundMethods) {
    const original = calls[method];
    if (typeof original !== 'function') continue;
    calls[method] = (...args: unknown[]) =>
      hook({ platform, method, args }, () => original.apply(adapter, args));
  }
  const start = adapter.start;
  adapter.start = (sink, gate) =>
    start.call(adapter, (event) => sink(respondingThrough(event, platform, hook)), gate);
  return adapter;
}

/** `event` with its `respond`, when it has one, made through `hook`. */
function respondingThrough(event: ChatEvent, platform: string, hook: OutboundHook): ChatEvent {
  if (!('respond' in event) || !event.respond) return event;
  const respond = event.respond;
  return {
    ...event,
    respond: async (reply) => {
      await hook({ platform, method: 'respond', args: [reply] }, () => respond(reply));
    },
  };
}
