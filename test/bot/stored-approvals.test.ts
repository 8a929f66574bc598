import { afterEach, describe, expect, it } from 'vitest';
import { say } from '../../src/bot/text.js';
import type { StoredMessage } from '../fakes/recording-adapter.js';
import { type BotHarness, startBotHarness, USERS } from '../helpers/bot-harness.js';

const harnesses: BotHarness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0).reverse()) await h.close();
});

/** A bot whose turn waits on a Bash prompt, stopped cleanly: the prompt is left open. */
async function stoppedWhileWaiting(): Promise<{ h: BotHarness; allow: string }> {
  const h = await startBotHarness({ approvalTimeoutMs: 600_000 });
  harnesses.push(h);
  h.fakeAnthropic.enqueue(
    { text: 'I will run it.', toolUse: [{ name: 'Bash', input: { command: 'echo approved' } }] },
    { text: 'Done running.' },
  );
  await h.message('please run echo');
  let prompt: StoredMessage | undefined;
  await h.until(() => {
    prompt = h.adapter.chatMessages(h.chat).find((m) => m.text.startsWith('🔐'));
    return prompt !== undefined && prompt.buttons.length > 0;
  }, 'approval prompt');
  await h.stop();
  const kept = prompt as StoredMessage;
  expect(h.adapter.messages.get(kept.id)?.buttons.length).toBeGreaterThan(0);
  const allow = kept.buttons.flat().find((b) => b.payload.startsWith('a:'))?.payload as string;
  return { h, allow };
}

// biome-ignore lint/suspicious/noExplicitAny: parsed request bodies.
const lastResult = (body: any) => JSON.stringify(body.messages.at(-1).content);

describe('approvals stored across a restart', () => {
  it('someone else is refused as before; past the stored deadline a press ends the wait as a timeout', async () => {
    const { h, allow } = await stoppedWhileWaiting();
    const later = await h.restart({ startAt: h.clock.now() + 60_000 });
    harnesses.push(later);
    expect(await later.press(allow, { user: USERS.bob })).toEqual([
      'Only Alice or an admin can answer this.',
    ]);
    expect(h.fakeAnthropic.requests).toHaveLength(1);
    const late = await h.restart({ startAt: h.clock.now() + 601_000 });
    harnesses.push(late);
    expect(await late.press(allow)).toEqual([say.expired]);
    await late.until(() => late.texts().some((t) => t.includes('Done running.')), 'the turn goes on');
    // As a timeout in the running process: the call is denied.
    expect(lastResult(h.fakeAnthropic.requests[1])).toContain('Permission denied');
  });

  it('an answer within the deadline runs the call once; a second press finds nothing waiting', async () => {
    const { h, allow } = await stoppedWhileWaiting();
    const next = await h.restart({ startAt: h.clock.now() + 60_000 });
    harnesses.push(next);
    expect(await next.press(allow)).toEqual(['Allowed.']);
    await next.until(() => next.texts().some((t) => t.includes('Done running.')), 'the turn goes on');
    expect(lastResult(h.fakeAnthropic.requests[1])).toContain('approved');
    expect(await next.press(allow)).toEqual([say.expired]);
    expect(h.fakeAnthropic.requests).toHaveLength(2);
  });
});
