/**
 * What the contract's parts share: the running rig and the test's clock and
 * events (fresh for every test, hence getters), the platform's harness, the
 * `part` that declares a test or skips it with the platform's reason, and
 * small helpers for the checks.
 */
import { expect } from 'vitest';
import type { ChatCapabilities, OutboundFile, OutboundMessage } from '../../src/bot/adapter-contract.js';
import type { VirtualClock } from '../../src/clock.js';
import { SwitchboardError } from '../../src/errors.js';
import type { ContractPart, EventLog, PlatformHarness, PlatformRig } from './harness.js';

/** One platform's suite, as its parts see it. */
export interface SuiteContext {
  readonly harness: PlatformHarness;
  /** The rig of the running test. */
  readonly rig: PlatformRig;
  /** The events of the running test. */
  readonly log: EventLog;
  /** The adapter's clock in the running test. */
  readonly clock: VirtualClock;
  /** The capabilities of {@link PlatformRig.chat}. */
  readonly caps: ChatCapabilities;
  /** Declares the test `title` for `part`, or a skip naming why the platform cannot do it. */
  part(part: ContractPart, title: string, body: () => Promise<void>): void;
  /** A message in the chat's own dialect (no markup in it). */
  say(text: string): OutboundMessage;
}

/** The error a call rejected with; fails the test when it resolved or threw something else. */
export async function rejection(call: Promise<unknown>): Promise<SwitchboardError> {
  const outcome = await call.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (outcome === undefined) throw new Error('the call succeeded; the contract wants it refused');
  expect(outcome).toBeInstanceOf(SwitchboardError);
  return outcome as SwitchboardError;
}

/** A document of `size` bytes, as the core hands it to `sendFile`. */
export function document(name: string, size: number): OutboundFile {
  return {
    name,
    path: `/nonexistent/${name}`,
    bytes: new Uint8Array(size).fill(0x61),
    mediaType: 'application/octet-stream',
    kind: 'document',
  };
}
