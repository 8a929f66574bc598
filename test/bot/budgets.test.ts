/**
 * Budgets as a chat sees them, on the real bot core, session and provider
 * against the fake Messages API, with a virtual clock for the UTC periods.
 * Every scripted reply reports 100 output tokens and the price table makes
 * an output token cost a cent, so each model request costs exactly $1.00.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { say } from '../../src/bot/text.js';
import { priceTable } from '../../src/provider/pricing.js';
import type { StoredMessage } from '../fakes/recording-adapter.js';
import { type BotHarness, type HarnessOptions, startBotHarness, USERS } from '../helpers/bot-harness.js';

const MODEL = 'claude-sonnet-4-6';
const PRICES = priceTable({
  [MODEL]: { input: 0, output: 10_000, cacheWrite5m: 0, cacheWrite1h: 0, cacheRead: 0 },
});
const DOLLAR = { input_tokens: 0, output_tokens: 100 };

let harnesses: BotHarness[] = [];
afterEach(async () => {
  for (const h of harnesses.reverse()) await h.close();
  harnesses = [];
});

async function start(options: HarnessOptions = {}): Promise<BotHarness> {
  const h = await startBotHarness({ model: MODEL, prices: PRICES, ...options });
  harnesses.push(h);
  return h;
}

/** One message answered with one $1.00 request. */
async function paidMessage(h: BotHarness, text: string, user = USERS.alice): Promise<void> {
  h.fakeAnthropic.enqueue({ text: `answer to ${text}`, usage: DOLLAR });
  await h.message(text, { user });
  await h.settle();
}

const noticeWith = (h: BotHarness, start: string): StoredMessage | undefined =>
  h.adapter.chatMessages(h.chat).findLast((m) => m.text.startsWith(start));

describe('budgets', () => {
  it('says the 80% line once, refuses a capped message without a model request, and an admin extends it once', async () => {
    const h = await start({ budgets: { userDay: 5 } });
    for (let i = 1; i <= 4; i++) await paidMessage(h, `q${i}`);
    const warning = say.budgetWarning('user-day', '$4.00', '$5.00');
    expect(warning).toBe('⚠️ 80% of your daily budget ($4.00 of $5.00) is used.');
    expect(h.texts().filter((t) => t === warning)).toHaveLength(1);
    await paidMessage(h, 'q5');
    expect(h.texts().filter((t) => t.startsWith('⚠️ 80%'))).toHaveLength(1);

    const requests = h.fakeAnthropic.requests.length;
    await h.message('q6');
    await h.settle();
    expect(h.fakeAnthropic.requests.length).toBe(requests);
    const notice = noticeWith(h, '🛑') as StoredMessage;
    expect(notice.text).toBe(
      say.budgetReached('user-day', '$5.00', '$5.00', '2026-01-02 00:00', false, '$5.00'),
    );
    expect(notice.buttons.flat().map((b) => b.label)).toEqual(['Allow $5.00 more']);
    const noticeText = notice.text;
    const payload = notice.buttons.flat()[0]?.payload as string;
    expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(64);

    // Alice herself and Bob are not admins: refused, nothing changes.
    expect(await h.press(payload)).toEqual([say.budgetAdminOnly]);
    expect(await h.press(payload, { user: USERS.bob })).toEqual([say.budgetAdminOnly]);
    await h.message('q7');
    await h.settle();
    expect(h.fakeAnthropic.requests.length).toBe(requests);

    expect(await h.press(payload, { user: USERS.admin, messageId: notice.id })).toEqual([
      say.budgetExtendedAnswer('$5.00'),
    ]);
    await h.settle();
    expect(h.adapter.messageText(notice.id)).toBe(`${noticeText}\n\n${say.budgetExtended('$5.00', 'Admin')}`);
    expect(h.adapter.messages.get(notice.id)?.buttons).toEqual([]);
    expect(await h.press(payload, { user: USERS.admin })).toEqual([say.budgetAlreadyExtended]);
    await paidMessage(h, 'q8');
    expect(h.texts().join('\n')).toContain('answer to q8');

    // Spent up to the extended limit: refused again, and no second extension is offered.
    for (let i = 9; i <= 12; i++) await paidMessage(h, `q${i}`);
    await h.message('q13');
    await h.settle();
    const again = noticeWith(h, '🛑') as StoredMessage;
    expect(again.text).toContain('already extended once');
    expect(again.buttons).toEqual([]);

    // A new UTC day: the cap starts over.
    await h.clock.advance(24 * 3_600_000);
    await paidMessage(h, 'next day');
    expect(h.texts().join('\n')).toContain('answer to next day');
  });

  it('holds each person to their own daily cap, and the chat and month caps for everyone', async () => {
    const h = await start({ budgets: { userDay: 2, month: 3 } });
    await paidMessage(h, 'a1');
    await paidMessage(h, 'a2');
    await h.message('a3');
    await h.settle();
    expect(noticeWith(h, '🛑')?.text).toContain('Your daily budget ($2.00)');
    // Bob has his own day, but the whole bot's month has one dollar left.
    await paidMessage(h, 'b1', USERS.bob);
    expect(h.texts().join('\n')).toContain('answer to b1');
    await h.message('b2', { user: USERS.bob });
    await h.settle();
    expect(noticeWith(h, '🛑')?.text).toContain("The bot's monthly budget ($3.00)");
    expect(noticeWith(h, '🛑')?.text).toContain('resets at 2026-02-01 00:00 UTC');
  });

  it('pauses a turn that crosses a cap before its next model request and goes on with its tool results when an admin extends it', async () => {
    const h = await start({ budgets: { chatDay: 1.5 } });
    h.fakeAnthropic.enqueue(
      {
        text: 'Looking.',
        toolUse: [{ name: 'Glob', input: { pattern: '*' } }],
        usage: { input_tokens: 0, output_tokens: 200 },
      },
      { text: 'Found nothing much.', usage: DOLLAR },
    );
    await h.message('what is here?');
    await h.until(() => noticeWith(h, '🛑') !== undefined, 'pause notice');
    const notice = noticeWith(h, '🛑') as StoredMessage;
    expect(notice.text).toBe(
      say.budgetReached('chat-day', '$1.50', '$2.00', '2026-01-02 00:00', true, '$1.50'),
    );
    expect(h.fakeAnthropic.requests.length).toBe(1);
    const payload = notice.buttons.flat()[0]?.payload as string;
    expect(await h.press(payload, { user: USERS.bob })).toEqual([say.budgetAdminOnly]);
    expect(await h.press(payload, { user: USERS.admin, messageId: notice.id })).toEqual([
      say.budgetExtendedAnswer('$1.50'),
    ]);
    await h.settle();
    expect(h.fakeAnthropic.requests.length).toBe(2);
    // The second request carries the tool call and its result from before the pause.
    const sent = JSON.stringify(h.fakeAnthropic.requests[1]?.messages);
    expect(sent).toContain('tool_result');
    expect(h.texts().join('\n')).toContain('Found nothing much.');
  });

  it('ends a paused turn with a notice when nobody extends the cap in time', async () => {
    const h = await start({ budgets: { chatDay: 1 }, approvalTimeoutMs: 30_000 });
    h.fakeAnthropic.enqueue({ toolUse: [{ name: 'Glob', input: { pattern: '*' } }], usage: DOLLAR });
    await h.message('look around');
    await h.until(() => noticeWith(h, '🛑') !== undefined, 'pause notice');
    await h.until(() => h.texts().some((t) => t.includes(say.budgetStopped)), 'stop notice', 500);
    await h.settle();
    expect(h.fakeAnthropic.requests.length).toBe(1);
  });

  it('/budget shows caps, spend and resets; an admin sets a chat cap that survives a restart', async () => {
    const h = await start({ budgets: { userDay: 5 } });
    await paidMessage(h, 'hello');
    expect(await h.ask('budget')).toBe(
      [
        'Budgets, at the configured prices:',
        'Your daily budget: $1.00 spent of $5.00, resets 2026-01-02 00:00 UTC',
        "This chat's daily budget: no cap ($1.00 spent, resets 2026-01-02 00:00 UTC)",
        "The bot's monthly budget: no cap ($1.00 spent, resets 2026-02-01 00:00 UTC)",
      ].join('\n'),
    );
    expect(await h.ask('budget', 'chat 2')).toBe("Only an admin can set this chat's budget.");
    expect(await h.ask('budget', 'chat two', { user: USERS.admin })).toContain('Usage: /budget');
    expect(await h.ask('budget', 'chat 2', { user: USERS.admin })).toBe(
      "This chat's daily budget is now $2.00.",
    );
    await h.stop();
    const again = await h.restart({ model: MODEL, prices: PRICES, budgets: { userDay: 5 } });
    harnesses.push(again);
    expect(await again.ask('budget')).toContain("This chat's daily budget: $1.00 spent of $2.00");
    await paidMessage(again, 'second');
    await again.message('third');
    await again.settle();
    expect(noticeWith(again, '🛑')?.text).toContain("This chat's daily budget ($2.00)");
    // The notice's button was stored: it works on the restarted bot too.
    const payload = noticeWith(again, '🛑')?.buttons.flat()[0]?.payload as string;
    await again.stop();
    const third = await again.restart({ model: MODEL, prices: PRICES });
    harnesses.push(third);
    expect(await third.press(payload, { user: USERS.admin })).toEqual([say.budgetExtendedAnswer('$2.00')]);
    expect(await third.ask('budget', 'chat off', { user: USERS.admin })).toBe(
      "This chat's daily budget is back to the bot's setting.",
    );
  });
});
