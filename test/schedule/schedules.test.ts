import { afterEach, describe, expect, it } from 'vitest';
import { say } from '../../src/bot/text.js';
import type { StoredMessage } from '../fakes/recording-adapter.js';
import { type BotHarness, startBotHarness, USERS } from '../helpers/bot-harness.js';

const harnesses: BotHarness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0).reverse()) await h.close();
});

async function harness(...args: Parameters<typeof startBotHarness>): Promise<BotHarness> {
  const h = await startBotHarness(...args);
  harnesses.push(h);
  return h;
}

const scheduledLines = (h: BotHarness) => h.texts().filter((t) => t.startsWith('⏰ Scheduled:'));

describe('schedules on the file store', () => {
  it('a schedule in 5 s runs once, as a turn of the chat session after its line', async () => {
    const h = await harness();
    const answer = await h.ask('schedule', 'in 5s check the build');
    expect(answer).toMatch(/^Scheduled ([0-9a-f]{6}) \(in 5s\); next run 2026-01-01 00:00 UTC\./);
    expect(h.fakeAnthropic.requests).toHaveLength(0);
    await h.until(() => h.texts().includes('Alice said: check the build'), 'scheduled reply');
    expect(h.clock.now()).toBeGreaterThanOrEqual(Date.parse('2026-01-01T00:00:05Z'));
    expect(scheduledLines(h)).toEqual([say.scheduledRun('check the build')]);
    // The line comes first, then the reply under it.
    expect(h.texts().slice(-2)).toEqual([say.scheduledRun('check the build'), 'Alice said: check the build']);
    // Long after: still exactly one run, and a one-off schedule is gone.
    await h.clock.advance(3_600_000);
    await h.settle();
    expect(h.fakeAnthropic.requests).toHaveLength(1);
    expect(await h.ask('schedules')).toMatch(/^No schedules in this chat/);
    // People can follow up: the run is part of the chat's session.
    await h.message('and then?');
    await h.settle();
    expect(JSON.stringify(h.fakeAnthropic.requests[1]?.messages)).toContain('check the build');
  });

  it('survives a restart before it is due, and runs once after it', async () => {
    const first = await harness();
    await first.ask('schedule', 'in 5s check the build');
    await first.stop();
    const second = await harness({ root: first.dirs.root, fakeAnthropic: first.fakeAnthropic });
    await second.until(() => second.texts().includes('Alice said: check the build'), 'run after restart');
    await second.clock.advance(60_000);
    await second.settle();
    expect(first.fakeAnthropic.requests).toHaveLength(1);
    expect(scheduledLines(second)).toHaveLength(1);
  });

  it('a run missed while the bot was down runs at start when within the grace, else is skipped with a line', async () => {
    const first = await harness();
    await first.ask('schedule', 'in 5s soon');
    await first.ask('schedule', 'daily 00:30 morning report');
    await first.stop();
    // Back 40 minutes after `in 5s` was due (grace 1 h) and 10 after the 00:30 run.
    const second = await harness({
      root: first.dirs.root,
      fakeAnthropic: first.fakeAnthropic,
      startAt: Date.parse('2026-01-01T00:40:00Z'),
      schedules: { graceMs: 30 * 60_000 },
    });
    await second.until(() => second.texts().includes('Alice said: morning report'), 'late run within grace');
    await second.settle();
    expect(second.texts().some((t) => t.startsWith('⏰ Skipped the run of 2026-01-01 00:00 UTC'))).toBe(true);
    expect(second.texts()).not.toContain('Alice said: soon');
    expect(await second.ask('schedules')).toContain(
      'next 2026-01-02 00:30 UTC (daily 00:30) by Alice: morning report',
    );
  });

  it('/schedules lists id, next run, maker and prompt; /unschedule is for the maker or an admin', async () => {
    const h = await harness();
    const made = await h.ask('schedule', 'weekdays 09:00 stand-up notes');
    const id = /Scheduled ([0-9a-f]{6})/.exec(made)?.[1] as string;
    await h.ask('schedule', '"*/30 * * * *" check the queue', { user: USERS.bob });
    const list = await h.ask('schedules');
    expect(list.split('\n')).toEqual([
      'Schedules:',
      expect.stringMatching(
        /^[0-9a-f]{6} - next 2026-01-01 00:30 UTC \("\*\/30 \* \* \* \*"\) by Bob: check the queue$/,
      ),
      // 2026-01-01 is a Thursday.
      `${id} - next 2026-01-01 09:00 UTC (weekdays 09:00) by Alice: stand-up notes`,
    ]);
    expect(await h.ask('unschedule', id, { user: USERS.bob })).toBe(
      `Only Alice (who made it) or an admin can remove schedule ${id}.`,
    );
    expect(await h.ask('unschedule', id, { user: USERS.admin })).toMatch(/^Removed schedule/);
    expect(await h.ask('unschedule', id)).toMatch(/^No schedule/);
    expect(await h.ask('schedules')).not.toContain(id);
    // A removed schedule never runs.
    await h.clock.advance(10 * 3_600_000);
    await h.settle();
    expect(h.texts()).not.toContain(say.scheduledRun('stand-up notes'));
  });

  it('bad input gets a clear answer', async () => {
    const h = await harness();
    expect(await h.ask('schedule', 'tomorrow do it')).toMatch(/is not a time I understand\. Use `in 10m`/);
    expect(await h.ask('schedule', 'in 10m')).toMatch(/^Say what to do after the time/);
    expect(await h.ask('schedule', '"0 9 * *" x')).toMatch(/not a five-field cron expression/);
    expect(await h.ask('schedule', '"0 25 * * *" x')).toMatch(/not a cron expression I can use/);
    expect(await h.ask('schedule', 'every 10s x')).toMatch(/shortest period is one minute/);
    expect(await h.ask('timezone', 'Mars/Olympus')).toMatch(/is not an IANA time zone/);
    expect(await h.ask('schedules')).toMatch(/^No schedules/);
  });

  it('a daily schedule stays at nine local time across a daylight-saving change', async () => {
    // Europe/Berlin leaves CET (UTC+1) for CEST (UTC+2) on 2026-03-29 at 02:00.
    const h = await harness({ startAt: Date.parse('2026-03-27T12:00:00Z') });
    expect(await h.ask('timezone', 'Europe/Berlin')).toBe(
      'Time zone is now Europe/Berlin; new schedules here use it.',
    );
    expect(await h.ask('schedule', 'daily 09:00 morning report')).toContain(
      'next run 2026-03-28 09:00 Europe/Berlin',
    );
    const runs: number[] = [];
    // 08:00 UTC before the change, 07:00 UTC after: nine o'clock in Berlin both times.
    for (const due of ['2026-03-28T08:00:00Z', '2026-03-29T07:00:00Z']) {
      const before = runs.length;
      // Straight to a minute before (a run an hour early would fire on the way), then in one-second steps.
      await h.clock.advance(Date.parse(due) - 60_000 - h.clock.now());
      await h.settle();
      expect(scheduledLines(h)).toHaveLength(before);
      await h.until(() => scheduledLines(h).length > before, `run at ${due}`, 1_000);
      runs.push(h.clock.now());
      expect(runs.at(-1)).toBeGreaterThanOrEqual(Date.parse(due));
      expect(runs.at(-1)).toBeLessThan(Date.parse(due) + 60_000);
      await h.settle();
    }
    expect(await h.ask('schedules')).toContain('next 2026-03-30 09:00 Europe/Berlin');
  });

  it('the model makes a schedule with the Schedule tool, after the person approves it', async () => {
    const h = await harness();
    h.fakeAnthropic.enqueue(
      {
        toolUse: [
          { name: 'Schedule', input: { when: 'weekdays 09:00', prompt: 'remind Alice of the stand-up' } },
        ],
      },
      { text: 'Done: every weekday at nine.' },
    );
    await h.message('remind me every weekday at nine about the stand-up');
    let prompt: StoredMessage | undefined;
    await h.until(() => {
      prompt = h.adapter.chatMessages(h.chat).find((m) => m.text.startsWith('🔐'));
      return prompt !== undefined && prompt.buttons.length > 0;
    }, 'approval prompt');
    const allow = prompt?.buttons.flat().find((b) => b.payload.startsWith('a:'))?.payload as string;
    expect(await h.press(allow)).toEqual(['Allowed.']);
    await h.settle();
    const result = JSON.stringify(h.fakeAnthropic.requests[1].messages);
    expect(result).toMatch(/Scheduled [0-9a-f]{6} \(weekdays 09:00\); next run 2026-01-01 09:00 UTC/);
    expect(await h.ask('schedules')).toMatch(/\(weekdays 09:00\) by Alice: remind Alice of the stand-up$/);
  });

  it('with SWITCHBOARD_UNATTENDED_APPROVALS=deny a scheduled run is denied tools at once, with a line', async () => {
    const h = await harness({ schedules: { unattendedApprovals: 'deny' } });
    await h.ask('schedule', 'in 5s run the tests');
    h.fakeAnthropic.enqueue(
      { toolUse: [{ name: 'Bash', input: { command: 'npm test' } }] },
      { text: 'I could not run them.' },
    );
    await h.until(() => h.texts().includes('I could not run them.'), 'run ended');
    expect(h.texts()).toContain(say.unattendedDenied('Bash'));
    expect(h.texts().some((t) => t.startsWith('🔐'))).toBe(false);
  });
});
