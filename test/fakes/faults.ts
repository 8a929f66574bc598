/**
 * Fault plans shared by the reliability tests. The platform fakes inject
 * their own faults (429, 5xx, slow, dropped); this picks, for the fake
 * Anthropic API, which replies misbehave, deterministically per chat so a
 * test knows which chats must show a full reply and which an error.
 */
import type { ScriptedResponse } from './anthropic.js';

/** What happens to one chat's model replies. */
export type ModelFault =
  /** 529 overloaded on the first attempt; the SDK's retry succeeds. */
  | 'overloaded-once'
  /** Text starts, then an SSE error event ends the stream (the SDK does not retry it). */
  | 'mid-stream-error'
  /** Text starts, then the connection is destroyed. */
  | 'dropped'
  | 'none';

/** Roughly one chat in `every` gets each fault, in a fixed rotation. */
export function modelFaultFor(index: number, every = 10): ModelFault {
  const slot = index % every;
  if (slot === 1) return 'overloaded-once';
  if (slot === 4) return 'mid-stream-error';
  if (slot === 7) return 'dropped';
  return 'none';
}

/**
 * A `setDefault` function for the fake Anthropic API: the reply for a chat
 * (found by `key` in the request) is `reply(key)`, in two chunks, disturbed
 * by that chat's fault. `overloaded-once` answers 529 to the first request of
 * the chat only.
 */
export function faultyModel(options: {
  // biome-ignore lint/suspicious/noExplicitAny: parsed request bodies.
  keyOf: (body: any) => string | undefined;
  faultOf: (key: string) => ModelFault;
  reply: (key: string) => string;
  chunkDelayMs?: number;
  // biome-ignore lint/suspicious/noExplicitAny: parsed request bodies.
}): (body: any) => ScriptedResponse {
  const seen = new Map<string, number>();
  return (body) => {
    const key = options.keyOf(body);
    if (key === undefined) return { text: 'ok' };
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    const text = options.reply(key);
    const half = Math.ceil(text.length / 2);
    const chunks = [text.slice(0, half), text.slice(half)];
    const base: ScriptedResponse = { text: chunks, chunkDelayMs: options.chunkDelayMs ?? 5 };
    switch (options.faultOf(key)) {
      case 'overloaded-once':
        return n === 1
          ? { error: { status: 529, type: 'overloaded_error', message: 'Overloaded', retryAfter: 0.01 } }
          : base;
      case 'mid-stream-error':
        return {
          text: [chunks[0] ?? ''],
          midStreamError: { type: 'overloaded_error', message: 'Overloaded' },
        };
      case 'dropped':
        return { ...base, dropAfterChunks: 1 };
      default:
        return base;
    }
  };
}
