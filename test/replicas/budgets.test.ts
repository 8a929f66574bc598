/**
 * Budgets across two replicas of the bot core sharing one PostgreSQL schema
 * (real stores, lease and control bus): spend recorded on one replica caps
 * a message on the other, and a turn paused on a cap on one replica goes on
 * when an admin's press of `Allow $X more` arrives at the other.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { say } from '../../src/bot/text.js';
import { priceTable } from '../../src/provider/pricing.js';
import type { StoredMessage } from '../fakes/recording-adapter.js';
import { type BotHarness, type HarnessOptions, USERS } from '../helpers/bot-harness.js';
import { SKIP_REASON, testDatabaseUrl, testSchemas } from '../store-postgres/database.js';
import { pgReplicas, type Replica } from './pg-replicas.js';

const url = testDatabaseUrl();
const schemas = url ? testSchemas(url) : undefined;
const MODEL = 'claude-sonnet-4-6';
/** An output token costs a cent: 100 output tokens are $1.00. */
const PRICES = priceTable({
  [MODEL]: { input: 0, output: 10_000, cacheWrite5m: 0, cacheWrite1h: 0, cacheRead: 0 },
});
const DOLLAR = { input_tokens: 0, output_tokens: 100 };

const replicaOf = pgReplicas(url, { start: Date.parse('2026-01-01T00:00:00Z'), leaseTtlMs: 60_000 });
afterAll(async () => {
  await schemas?.cleanup();
});

/** A replica with a price table and caps of its own, sharing the first one's fake Messages API. */
const replica = (schema: string, harness: HarnessOptions, first?: Replica) =>
  replicaOf(schema, { ...(first ? { first } : {}), harness: { model: MODEL, prices: PRICES, ...harness } });

const notice = (h: BotHarness): StoredMessage | undefined =>
  h.adapter.chatMessages(h.chat).findLast((m) => m.text.startsWith('🛑'));

if (!url)
  describe('budgets across replicas', () => {
    it.skip(SKIP_REASON, () => undefined);
  });

describe.skipIf(!url)('budgets across replicas', () => {
  it('spend on one replica caps a message on the other', async () => {
    const schema = (schemas ?? { name: () => '' }).name();
    const a = await replica(schema, { budgets: { userDay: 2 } });
    const b = await replica(schema, { budgets: { userDay: 2 } }, a);
    a.h.fakeAnthropic.enqueue({ text: 'one', usage: DOLLAR }, { text: 'two', usage: DOLLAR });
    await a.h.message('first');
    await a.h.settle();
    await b.h.message('second');
    await b.h.settle();
    const requests = a.h.fakeAnthropic.requests.length;
    expect(requests).toBe(2);
    await b.h.message('third');
    await b.h.settle();
    expect(a.h.fakeAnthropic.requests.length).toBe(requests);
    expect(notice(b.h)?.text).toContain('Your daily budget ($2.00) is used up ($2.00 spent)');
    expect(await b.h.ask('budget')).toContain('Your daily budget: $2.00 spent of $2.00');
  });

  it('a turn paused on a cap on one replica goes on when the admin presses on the other', async () => {
    const schema = (schemas ?? { name: () => '' }).name();
    const a = await replica(schema, { budgets: { chatDay: 1 } });
    const b = await replica(schema, { budgets: { chatDay: 1 } }, a);
    a.h.fakeAnthropic.enqueue(
      { toolUse: [{ name: 'Glob', input: { pattern: '*' } }], usage: DOLLAR },
      { text: 'All done after the pause.', usage: DOLLAR },
    );
    await a.h.message('look around');
    await a.h.until(() => notice(a.h) !== undefined, 'pause notice');
    const payload = notice(a.h)?.buttons.flat()[0]?.payload as string;
    let answers: string[] | undefined;
    void b.h.press(payload, { user: USERS.admin }).then((got) => {
      answers = got;
    });
    await b.h.until(() => answers !== undefined, 'press answered');
    expect(answers).toEqual([say.budgetExtendedAnswer('$1.00')]);
    await a.h.until(() => a.h.texts().some((t) => t.includes('All done after the pause.')), 'turn went on');
    expect(JSON.stringify(a.h.fakeAnthropic.requests[1]?.messages)).toContain('tool_result');
  });
});
