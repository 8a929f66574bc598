/**
 * A flood of forged requests costs nothing lasting. 20,000 badly signed
 * requests to Slack's HTTP mode are all refused, the replay guard remembers
 * none of them (it stores a signature only after it checks out), and the
 * heap after a full collection is back near where it started. A genuine
 * request is still remembered, and its replay refused.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import type { SlackAdapter } from '../../adapters/slack/index.js';
import { startAdapter } from '../adapters/slack/helpers.js';
import { type FakeSlack, SlackRequestSender, startFakeSlack } from '../fakes/slack/index.js';

const SECRET = 'flood-signing-secret-4f3e2d';
const FORGED = 20_000;
const IN_FLIGHT = 32;

let fake: FakeSlack | undefined;
let adapter: SlackAdapter | undefined;
afterEach(async () => {
  await adapter?.stop();
  await fake?.close();
  adapter = undefined;
  fake = undefined;
});

/** A full, synchronous garbage collection (the flag is set once, here, for this test file). */
function collect(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

describe('a flood of forged requests', () => {
  it('Slack HTTP mode: 20,000 badly signed requests are refused and leave nothing behind', async () => {
    fake = await startFakeSlack();
    ({ adapter } = await startAdapter(fake, { signingSecret: SECRET }));
    const sender = new SlackRequestSender(adapter.url as string, SECRET);
    const event = (i: number) =>
      fake!.eventBody({
        type: 'message',
        channel: 'D1',
        channel_type: 'im',
        user: 'U1',
        text: `forged ${i}`,
        ts: `9.${i}`,
      });
    // Warm the path (Bolt, the HTTP parser) so the baseline holds what a first request allocates.
    expect((await sender.event(event(-1), { signature: 'bad' })).status).toBe(401);
    collect();
    const baseline = process.memoryUsage().heapUsed;

    const statuses = new Map<number, number>();
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < FORGED) {
          const i = next++;
          // Each forged request carries its own timestamp and body, so each has a new signature.
          const res = await sender.event(event(i), {
            signature: 'bad',
            timestampSec: Math.floor(Date.now() / 1000) - (i % 200),
          });
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        }
      }),
    );
    expect(statuses).toEqual(new Map([[401, FORGED]]));
    expect(adapter.rememberedSignatures).toBe(0);
    collect();
    const grownMb = (process.memoryUsage().heapUsed - baseline) / 1024 / 1024;
    console.log(
      `heap after ${FORGED} forged requests and a full GC: ${grownMb.toFixed(2)} MB over the baseline`,
    );
    // Remembering every forged signature held ~157 MB; what is left now is allocator noise.
    expect(grownMb).toBeLessThan(16);

    const genuine = await sender.event(event(FORGED));
    expect(genuine.status).toBe(200);
    expect(adapter.rememberedSignatures).toBe(1);
    expect((await sender.replay(genuine.request)).status).toBe(401);
  }, 180_000);
});
