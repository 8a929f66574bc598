/**
 * `/cost` and the `/status` cost line, as a person in the chat reads them:
 * figures that match the usage the Messages API reported, priced at list
 * prices (or the configured ones), kept across a restart, and the bot's
 * totals per day for an admin.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_PRICES, priceFor, priceTable } from '../../src/provider/pricing.js';
import { type BotHarness, startBotHarness, USERS } from '../helpers/bot-harness.js';

const MODEL = 'claude-sonnet-4-6';
let harnesses: BotHarness[] = [];

afterEach(async () => {
  for (const h of harnesses.reverse()) await h.close();
  harnesses = [];
});

async function start(options: Parameters<typeof startBotHarness>[0] = {}): Promise<BotHarness> {
  const h = await startBotHarness({ model: MODEL, ...options });
  harnesses.push(h);
  return h;
}

async function say(h: BotHarness, text: string, chat = h.chat, user = USERS.alice): Promise<void> {
  await h.message(text, { chat, user });
  await h.settle();
}

interface ApiUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

/** The line the bot should print for the requests the fake answered, priced by hand from `price`. */
function expectedLine(h: BotHarness, price = priceFor(MODEL, DEFAULT_PRICES)): string {
  const used = h.fakeAnthropic.log.map((e) => e.usage as unknown as ApiUsage);
  let input = 0;
  let read = 0;
  let output = 0;
  let usd = 0;
  for (const u of used) {
    const w5 = u.cache_creation.ephemeral_5m_input_tokens;
    const w1 = u.cache_creation.ephemeral_1h_input_tokens;
    input += u.input_tokens + w5 + w1 + u.cache_read_input_tokens;
    read += u.cache_read_input_tokens;
    output += u.output_tokens;
    if (price)
      usd +=
        (u.input_tokens * price.input +
          w5 * price.cacheWrite5m +
          w1 * price.cacheWrite1h +
          u.cache_read_input_tokens * price.cacheRead +
          u.output_tokens * price.output) /
        1e6;
  }
  const pct = Math.round((read / input) * 100);
  return (
    `${input.toLocaleString('en-US')} tokens in (${pct}% from the cache), ` +
    `${output.toLocaleString('en-US')} out, ${used.length} request${used.length === 1 ? '' : 's'}: $${usd.toFixed(4)}`
  );
}

describe('/cost', () => {
  it("answers with this session's tokens, cache share and cost; /status carries the same line", async () => {
    const h = await start();
    expect(await h.ask('cost')).toMatch(/^No session yet in this chat/);
    await say(h, 'hello');
    await say(h, 'and again');
    const answer = await h.ask('cost');
    const line = expectedLine(h);
    expect(answer.split('\n')[0]).toBe(`This session: ${line}`);
    // The second request read what the first wrote.
    expect(line).not.toContain('(0% from the cache)');
    expect(answer).not.toContain('Bot, per day');
    expect(await h.ask('status')).toContain(`Cost: ${line}`);
    // Each turn's log line carries the usage it reported.
    const ended = h.logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'turn ended');
    expect(ended).toHaveLength(2);
    expect(ended[1].usage.cacheReadInputTokens).toBe(h.fakeAnthropic.log[1]?.usage?.cache_read_input_tokens);
  });

  it('shows an admin the bot totals per day over every session; the cost survives a restart', async () => {
    const h = await start();
    await say(h, 'hello from alice', 'test:1', USERS.alice);
    await say(h, 'hello from bob', 'test:2', USERS.bob);
    const all = expectedLine(h);
    const admin = await h.ask('cost', '', { user: USERS.admin, chat: 'test:3' });
    expect(admin.split('\n')).toEqual([
      'No session yet in this chat: send a message to start one.',
      'Bot, per day (UTC):',
      `2026-01-01: ${all}`,
      `All days: ${all}`,
      'List prices; a discount or another price list is set with SWITCHBOARD_PRICES.',
    ]);
    const before = await h.ask('cost', '', { chat: 'test:1' });
    await h.stop();
    const again = await h.restart();
    harnesses.push(again);
    expect(await again.ask('cost', '', { chat: 'test:1' })).toBe(before);
    expect(await again.ask('cost', '', { user: USERS.admin, chat: 'test:3' })).toBe(admin);
  });

  it('prices with the configured table, and says which models it has no price for', async () => {
    const cheap = { input: 1, output: 1, cacheWrite5m: 1, cacheWrite1h: 1, cacheRead: 1 };
    const h = await start({ prices: priceTable({ [MODEL]: cheap }) });
    await say(h, 'hello');
    expect((await h.ask('cost')).split('\n')[0]).toBe(`This session: ${expectedLine(h, cheap)}`);

    const unknown = await start({ prices: {} });
    await say(unknown, 'hello');
    expect((await unknown.ask('cost')).split('\n')[0]).toMatch(
      /: \$0\.0000 \(no price for claude-sonnet-4-6\)$/,
    );
  });
});
