/**
 * The adapter contract suite: what every chat adapter must do, checked
 * through its real SDK against its loopback fake. A platform runs it with
 * `contractSuite(harness)` (see harness.ts). What a platform cannot do it
 * names in `harness.cannot`; those tests are skipped with the reason in
 * their name, so a gap shows in every run instead of passing silently.
 *
 * The core relies on these: it splits at `maxMessageLength`, resends plain
 * after FORMAT_REJECTED, waits out a RateLimitError for its scope, keeps
 * button payloads within `buttonPayloadLimit`, answers every press once,
 * and sends to the chat key an event came with. The parts are in
 * messages.ts and interactions.ts.
 */
import { afterEach, beforeEach, describe, it } from 'vitest';
import type { ChatCapabilities } from '../../src/bot/adapter-contract.js';
import { VirtualClock } from '../../src/clock.js';
import { EventLog, type PlatformHarness, type PlatformRig } from './harness.js';
import { interactionParts } from './interactions.js';
import { messageParts } from './messages.js';
import type { SuiteContext } from './suite-context.js';

/** Declares the contract tests for one platform. */
export function contractSuite(harness: PlatformHarness): void {
  describe(`adapter contract: ${harness.name}`, () => {
    let rig: PlatformRig;
    /** The rig to close after the test; unset when its start failed (the harness cleaned up then). */
    let running: PlatformRig | undefined;
    let log: EventLog;
    let clock: VirtualClock;
    let caps: ChatCapabilities;

    beforeEach(async () => {
      log = new EventLog();
      clock = new VirtualClock(Date.now());
      rig = await harness.start({ log, clock });
      running = rig;
      caps = rig.adapter.capabilities(rig.chat);
    });
    afterEach(async () => {
      await running?.close();
      running = undefined;
    });

    const context: SuiteContext = {
      harness,
      get rig() {
        return rig;
      },
      get log() {
        return log;
      },
      get clock() {
        return clock;
      },
      get caps() {
        return caps;
      },
      part(part, title, body) {
        const reason = harness.cannot?.[part];
        if (reason === undefined) it(`${part}: ${title}`, body);
        else it.skip(`${part}: not on ${harness.name}: ${reason}`, body);
      },
      say: (text) => ({ text, format: caps.dialect }),
    };
    messageParts(context);
    interactionParts(context);
  });
}
