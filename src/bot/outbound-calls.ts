/**
 * The adapter contract's outbound calls, as one interceptor sees them: which
 * {@link ChatAdapter} methods are calls to the platform (everything but what
 * the adapter declares about itself and its lifecycle), their names at run
 * time, and the hook every call passes through (src/ops/outbound-funnel.ts).
 * The compiler keeps {@link OUTBOUND_METHODS} equal to the contract's methods,
 * so a call added to `ChatAdapter` without the funnel fails the typecheck.
 */
import type { ChatAdapter } from './adapter-contract.js';

/**
 * The methods of {@link ChatAdapter} that are not calls to the platform made
 * for a chat: what the adapter declares, its lifecycle, and local
 * descriptions. Every other method is an {@link OutboundCalls} method, so a
 * method added to the contract is outbound unless it is named here.
 */
export type AdapterSelfMethod = 'capabilities' | 'start' | 'stop' | 'describeChat' | 'health';

/** The keys of `T` whose values are functions (optional ones included). */
type MethodKeys<T> = {
  [K in keyof T]-?: NonNullable<T[K]> extends (...args: never[]) => unknown ? K : never;
}[keyof T];

/**
 * The calls the core makes to a platform through an adapter (send, edit,
 * uploads, streams, threads...): every method of the contract (`A`) but its
 * {@link AdapterSelfMethod}s. Data members (`platform`, `globalBudget`) are
 * no calls.
 */
export type OutboundCalls<A = ChatAdapter> = Pick<A, Exclude<MethodKeys<A>, AdapterSelfMethod>>;

/** The name of one {@link OutboundCalls} method: the `method` an {@link OutboundHook} sees. */
export type OutboundMethod = keyof OutboundCalls;

/**
 * Every {@link OutboundMethod}, at run time, for an interceptor to walk. The
 * `satisfies` makes a method added to the contract and missing here (or
 * named here and gone from the contract) a type error, so the walk cannot
 * miss a call.
 */
export const OUTBOUND_METHODS = {
  send: true,
  edit: true,
  delete: true,
  typing: true,
  sendFile: true,
  openThread: true,
  startStream: true,
  updateStream: true,
  finishStream: true,
} as const satisfies Record<OutboundMethod, true>;

/**
 * The name of a call an {@link OutboundHook} sees: an {@link OutboundMethod},
 * or `respond`, the core answering an inbound event through its
 * {@link Responder} (a button's toast, a slash command's ephemeral reply).
 */
export type OutboundCallName = OutboundMethod | 'respond';

/** One outbound call on its way, as an {@link OutboundHook} sees it. */
export interface OutboundCall {
  /** The adapter's {@link ChatAdapter.platform}. */
  platform: string;
  method: OutboundCallName;
  /** The arguments the core passed, as passed. */
  args: readonly unknown[];
}

/**
 * Sees every outbound call of an adapter (grammY's API transformer, one
 * level up): `next` makes the call and resolves or rejects as the adapter
 * does; the hook returns what the core gets back.
 */
export type OutboundHook = (call: OutboundCall, next: () => Promise<unknown>) => Promise<unknown>;
