import { afterEach, describe, expect, it } from 'vitest';
import { say } from '../../src/bot/text.js';
import { type TimerHandle, VirtualClock } from '../../src/clock.js';
import type { StoredMessage } from '../fakes/recording-adapter.js';
import { type BotHarness, startBotHarness, USERS } from '../helpers/bot-harness.js';

let h: BotHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A virtual clock that notes every timer set: when, and for how long. */
class TimerLog extends VirtualClock {
  readonly armed: { at: number; ms: number }[] = [];
  override setTimeout(fn: () => void, ms: number): TimerHandle {
    this.armed.push({ at: this.now(), ms });
    return super.setTimeout(fn, ms);
  }
}

const PROMPT = '🔐 Bash wants to run:\n\n```sh\necho approved\n```';

/** Starts a turn whose model asks to run `echo approved`, then waits for the prompt. */
async function askForBash(harness: BotHarness): Promise<StoredMessage> {
  harness.fakeAnthropic.enqueue(
    { text: 'I will run it.', toolUse: [{ name: 'Bash', input: { command: 'echo approved' } }] },
    { text: 'Done running.' },
  );
  await harness.message('please run echo');
  let prompt: StoredMessage | undefined;
  await harness.until(() => {
    prompt = harness.adapter.chatMessages(harness.chat).find((m) => m.text.startsWith('🔐'));
    return prompt !== undefined && prompt.buttons.length > 0;
  }, 'approval prompt');
  return prompt as StoredMessage;
}

const payloads = (m: StoredMessage) => m.buttons.flat().map((b) => b.payload);
const payloadOf = (m: StoredMessage, prefix: string) =>
  payloads(m).find((p) => p.startsWith(prefix)) as string;

describe('bot core: approvals', () => {
  it('posts the prompt after the text so far, with short buttons, and runs the tool when the requester allows', async () => {
    h = await startBotHarness();
    const prompt = await askForBash(h);
    expect(prompt.text).toBe(PROMPT);
    expect(prompt.buttons.flat().map((b) => b.label)).toEqual([
      'Allow',
      'Allow for this session',
      'Always allow',
      'Deny',
    ]);
    for (const p of payloads(prompt)) expect(Buffer.byteLength(p)).toBeLessThanOrEqual(64);
    // The text that led to the request is already a message above the prompt.
    const texts = h.texts();
    expect(texts.findIndex((t) => t.includes('I will run it.'))).toBeLessThan(texts.indexOf(PROMPT));
    const answers = await h.press(payloadOf(prompt, 'a:'));
    expect(answers).toEqual(['Allowed.']);
    await h.settle();
    expect(h.adapter.messageText(prompt.id)).toBe(`${PROMPT}\n\n${say.allowed('Alice')}`);
    expect(h.adapter.messages.get(prompt.id)?.buttons).toEqual([]);
    expect(JSON.stringify(h.fakeAnthropic.requests[1].messages)).toContain('approved');
    expect(h.texts().join('\n')).toContain('Done running.');
  });

  it('refuses a press by another user and changes nothing; an admin may answer for anyone', async () => {
    h = await startBotHarness();
    const prompt = await askForBash(h);
    const refused = await h.press(payloadOf(prompt, 'a:'), { user: USERS.bob });
    expect(refused).toEqual(['Only Alice or an admin can answer this.']);
    await h.clock.advance(100);
    expect(h.adapter.messageText(prompt.id)).toBe(PROMPT);
    expect(h.adapter.messages.get(prompt.id)?.buttons.length).toBe(1);
    const denied = await h.press(payloadOf(prompt, 'd:'), { user: USERS.admin });
    expect(denied).toEqual(['Denied.']);
    await h.settle();
    expect(h.adapter.messageText(prompt.id)).toBe(`${PROMPT}\n\n${say.denied('Admin')}`);
    // The model heard the denial, not the command's output.
    expect(JSON.stringify(h.fakeAnthropic.requests[1].messages)).not.toContain('"approved\\n"');
    // A second press on the settled request is expired.
    expect(await h.press(payloadOf(prompt, 'a:'))).toEqual([say.expired]);
  });

  it('one timer per waiting approval: its deadline denies the call, tells the model and edits the prompt', async () => {
    const clock = new TimerLog(Date.parse('2026-01-01T00:00:00Z'));
    h = await startBotHarness({ clock, approvalTimeoutMs: 45_678 });
    const startedAt = clock.now();
    const prompt = await askForBash(h);
    // The one timer of this wait, armed when the tool asked: nothing else waits that long, or twice as long.
    const waits = clock.armed.filter((t) => t.ms >= 40_000 && t.ms <= 2 * 45_678);
    expect(waits).toHaveLength(1);
    const deadline = (waits[0]?.at ?? 0) + 45_678;
    expect(deadline).toBeGreaterThan(startedAt);
    await h.until(
      () => h?.adapter.messageText(prompt.id)?.includes(say.deniedTimeout) ?? false,
      'timeout',
      500,
    );
    expect(clock.now()).toBeGreaterThanOrEqual(deadline);
    expect(h.adapter.messages.get(prompt.id)?.buttons).toEqual([]);
    await h.settle();
    // The session saw the same deadline pass: the model is told the request went unanswered.
    expect(JSON.stringify(h.fakeAnthropic.requests[1].messages)).toContain('no answer within 46 s');
    expect(h.texts().join('\n')).toContain('Done running.');
    expect(clock.armed.filter((t) => t.ms >= 40_000 && t.ms <= 2 * 45_678)).toHaveLength(1);
  });

  it('"Allow for this session" covers the same command later without asking again', async () => {
    h = await startBotHarness();
    const prompt = await askForBash(h);
    expect(await h.press(payloadOf(prompt, 's:'))).toEqual(['Allowed for this session.']);
    await h.settle();
    expect(h.adapter.messageText(prompt.id)).toBe(`${PROMPT}\n\n${say.allowedSession('Alice')}`);
    h.fakeAnthropic.enqueue(
      { toolUse: [{ name: 'Bash', input: { command: 'echo approved' } }] },
      { text: 'Ran it again.' },
    );
    await h.message('again please');
    await h.settle();
    expect(h.texts().filter((t) => t.startsWith('🔐'))).toHaveLength(1);
    expect(h.texts().at(-1)).toContain('Ran it again.');
  });

  it('answers a press after a restart, for a request that no longer exists, with "expired"', async () => {
    h = await startBotHarness();
    const prompt = await askForBash(h);
    await h.stop();
    // Stopping leaves the prompt open (its turn is stored as waiting)…
    expect(h.adapter.messageText(prompt.id)).not.toContain('🚫');
    const again = await h.restart();
    try {
      // …until the chat goes on without it: a new message gives the wait up.
      await again.message('never mind');
      await again.settle();
      const answers = await again.press(payloadOf(prompt, 'a:'));
      expect(answers).toEqual(['This request has expired; please ask again.']);
      expect(await again.press('garbage')).toEqual([say.expired]);
      expect(await again.press('x:abc')).toEqual([say.alreadyFinished]);
    } finally {
      await again.close();
    }
  });
});

describe('bot core: who may approve', () => {
  it('a named approver may answer anyone’s prompt; others still may not', async () => {
    h = await startBotHarness({
      allowedUsers: ['test:alice', 'test:bob', 'test:eve'],
      approvers: ['test:bob'],
    });
    const prompt = await askForBash(h);
    expect(await h.press(payloadOf(prompt, 'a:'), { user: USERS.stranger })).toEqual([
      say.approvalOnlyFor('Alice'),
    ]);
    expect(await h.press(payloadOf(prompt, 'a:'), { user: USERS.bob })).toEqual(['Allowed.']);
    await h.settle();
    expect(h.adapter.messageText(prompt.id)).toBe(`${PROMPT}\n\n${say.allowed('Bob')}`);
    expect(h.texts().join('\n')).toContain('Done running.');
  });

  it('with self-approval off the requester cannot allow their own command; an approver or admin must', async () => {
    h = await startBotHarness({ approvers: ['test:bob'], selfApproval: false });
    const prompt = await askForBash(h);
    expect(await h.press(payloadOf(prompt, 'a:'))).toEqual([say.approvalNotSelf]);
    await h.clock.advance(100);
    expect(h.adapter.messages.get(prompt.id)?.buttons.length).toBe(1);
    expect(await h.press(payloadOf(prompt, 'a:'), { user: USERS.admin })).toEqual(['Allowed.']);
    await h.settle();
    expect(h.texts().join('\n')).toContain('Done running.');
  });

  it('with self-approval off the requester still answers for calls that only read or change files', async () => {
    h = await startBotHarness({ selfApproval: false, permissionMode: 'default' });
    h.fakeAnthropic.enqueue(
      { toolUse: [{ name: 'Write', input: { file_path: 'note.txt', content: 'hi' } }] },
      { text: 'Wrote it.' },
    );
    await h.message('write a note');
    let prompt: StoredMessage | undefined;
    await h.until(() => {
      prompt = h?.adapter.chatMessages(h.chat).find((m) => m.text.startsWith('🔐'));
      return prompt !== undefined && prompt.buttons.length > 0;
    }, 'approval prompt');
    expect(await h.press(payloadOf(prompt as StoredMessage, 'a:'))).toEqual(['Allowed.']);
    await h.settle();
    expect(h.texts().join('\n')).toContain('Wrote it.');
  });
});

const harnesses: BotHarness[] = [];
afterEach(async () => {
  for (const each of harnesses.splice(0).reverse()) await each.close();
});

/** A bot whose turn waits on a Bash prompt, stopped cleanly: the prompt is left open. */
async function stoppedWhileWaiting(): Promise<{ h: BotHarness; allow: string }> {
  const h = await startBotHarness({ approvalTimeoutMs: 600_000 });
  harnesses.push(h);
  const prompt = await askForBash(h);
  await h.stop();
  expect(h.adapter.messages.get(prompt.id)?.buttons.length).toBeGreaterThan(0);
  return { h, allow: payloadOf(prompt, 'a:') };
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
