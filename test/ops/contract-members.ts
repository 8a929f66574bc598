/** The adapter contract's members sorted into outbound calls and the rest, for the funnel's tests. */
import type { ChatAdapter } from '../../src/bot/adapter-contract.js';
import type { AdapterSelfMethod } from '../../src/bot/outbound-calls.js';
import { outboundMethods } from '../../src/ops/outbound-funnel.js';

/** Every {@link AdapterSelfMethod}; the type checker keeps the list complete. */
export const selfMethods = Object.keys({
  capabilities: true,
  start: true,
  stop: true,
  describeChat: true,
  health: true,
} satisfies Record<AdapterSelfMethod, true>);

/**
 * Every method of `adapter` (own or inherited) that is neither an outbound
 * call the funnel walks nor the adapter's description or lifecycle: a call
 * the core could make past the funnel.
 */
export function unwalkedCalls(adapter: ChatAdapter): string[] {
  const names = new Set<string>();
  for (let o: object | null = adapter; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
    for (const name of Object.getOwnPropertyNames(o)) names.add(name);
  }
  const known = new Set<string>([...outboundMethods, ...selfMethods, 'constructor']);
  return [...names].filter(
    (name) => !known.has(name) && typeof (adapter as unknown as Record<string, unknown>)[name] === 'function',
  );
}
