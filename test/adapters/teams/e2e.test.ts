/**
 * Teams end to end: the real Teams SDK inside the adapter, the bot core and
 * a real session, against the fake Bot Connector and identity
 * (test/fakes/teams) and the fake Anthropic API. The fake posts activities
 * with the tokens Teams would sign, enforces the documented limits, and
 * keeps what the bot sent as people would see it. Both sides run at Teams'
 * pace divided by ten (scale.ts); the model's reply is held at the point a
 * test needs (until Teams shows a streaming update, a first part…), never
 * paced by wall time.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { plain } from '../../../src/bot/format/dialect.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../fakes/anthropic.js';
import { BROKEN_TOKENS, type FakeTeams, type StoredActivity } from '../../fakes/teams/index.js';
import { echo } from '../../helpers/bot-harness.js';
import { useCleanups } from '../../helpers/cleanups.js';
import { replyIn, startScaledFakeTeams, startTeamsBot, type TeamsBot, text } from './bot.js';

const cleanups = useCleanups();

describe('Teams end to end', () => {
  let teams: FakeTeams;
  let anthropic: FakeAnthropic;
  let root: string;
  let bot: TeamsBot | undefined;

  beforeEach(async () => {
    teams = await startScaledFakeTeams();
    anthropic = await startFakeAnthropic();
    anthropic.setDefault((body) => ({ text: echo(body) }));
    root = await cleanups.tempRoot('teams');
  });

  afterEach(async () => {
    await bot?.stop();
    bot = undefined;
    await teams.close();
    await anthropic.close();
  });

  const reply = (conversationId: string, expected: string) => replyIn(teams, conversationId, expected);
  const lastMessage = (conversationId: string) => teams.messages(conversationId).at(-1);

  it('a personal chat streams the answer: informative, streaming, final', async () => {
    const ada = teams.person('Ada');
    bot = await startTeamsBot(teams, anthropic, root, [ada]);
    const chat = teams.personalChat(ada);
    // The reply is held open after its text until Teams has shown a streaming update, so the start, an update and the final all happen, at the stream pace.
    const seen = teams.waitForCall(
      (c) => c.op === 'send' && JSON.stringify(c.body).includes('"streamType":"streaming"'),
    );
    anthropic.enqueue({ text: ['Here is ', 'the **answer**', ' in parts', '.'], release: seen });
    const { answer } = await teams.userMessage(chat, 'hello');
    expect(answer.status).toBe(200);
    const final = await reply(chat.id, 'Here is the **answer** in parts.');
    const stream = teams.allStreams.find((s) => s.conversationId === chat.id);
    expect(stream?.state).toBe('final');
    expect(stream?.updates[0]?.streamType).toBe('informative');
    expect(stream?.updates.some((u) => u.streamType === 'streaming')).toBe(true);
    expect(final.id).toBe(stream?.id);
    expect(teams.calls.filter((c) => c.status === 429)).toEqual([]);
  });

  it("Teams' own Stop button on a streamed reply stops the turn", async () => {
    const ada = teams.person('Ada');
    bot = await startTeamsBot(teams, anthropic, root, [ada]);
    const chat = teams.personalChat(ada);
    // The model says a first part, waits until the person has pressed Stop, says more, and would go on talking.
    let pressed: () => void = () => undefined;
    const stopPressed = new Promise<void>((resolve) => {
      pressed = resolve;
    });
    const talking = new Promise<void>((resolve) => cleanups.push(resolve));
    anthropic.enqueue({
      blocks: [
        { type: 'text', text: 'part 0. ' },
        { type: 'text', text: 'part 1. ' },
      ],
      hold: { after: 1, until: stopPressed },
      release: talking,
    });
    await teams.userMessage(chat, 'talk for a while');
    const streaming = await teams.waitForCall(
      (c) => c.op === 'send' && c.status < 300 && JSON.stringify(c.body).includes('"streamType":"streaming"'),
    );
    const stream = teams.allStreams.find((s) => s.conversationId === chat.id);
    expect(streaming).toBeDefined();
    teams.cancelStream(stream?.id ?? '');
    pressed();
    await reply(chat.id, '⏹ Stopped the current reply.');
    expect(stream?.state).toBe('cancelled');
  });

  it('a channel thread gets its reply in the thread, edited in place, never streamed', async () => {
    const ada = teams.person('Ada');
    bot = await startTeamsBot(teams, anthropic, root, [ada]);
    const channel = teams.channel([ada]);
    // The rest of the reply comes once the first part is on screen, so the message is edited.
    const firstShown = teams.waitForSent((m) => String(m.activity.text ?? '').startsWith('First part,'));
    anthropic.enqueue({
      blocks: [
        { type: 'text', text: 'First part, ' },
        { type: 'text', text: 'second part, ' },
        { type: 'text', text: 'the end.' },
      ],
      hold: { after: 1, until: firstShown },
    });
    const { activity } = await teams.userMessage(channel, 'tell me', { mentionBot: true });
    const thread = String((activity.conversation as { id: string }).id);
    expect(thread).toMatch(/;messageid=/);
    const final = await reply(thread, 'First part, second part, the end.');
    expect(final.history.length).toBeGreaterThan(0);
    expect(teams.allStreams).toEqual([]);
    expect(anthropic.requests.at(-1)?.messages.at(-1)).toBeDefined();
    expect(JSON.stringify(anthropic.requests.at(-1)?.messages)).toContain('tell me');
    expect(JSON.stringify(anthropic.requests.at(-1)?.messages)).not.toContain('<at>');
  });

  it('openThread in a channel posts a new thread beside it, whose key answers in that thread', async () => {
    const ada = teams.person('Ada');
    bot = await startTeamsBot(teams, anthropic, root, [ada]);
    const channel = teams.channel([ada]);
    const { activity } = await teams.userMessage(channel, 'hi', { mentionBot: true });
    const thread = String((activity.conversation as { id: string }).id);
    await reply(thread, 'Ada said: hi');
    const opened = await bot.adapter.openThread?.(`teams:${thread}`, 'Background work: tests');
    expect(opened?.chat).toBe(`teams:${channel.id};messageid=${opened?.messageId}`);
    await bot.adapter.send(opened?.chat ?? '', { text: 'done', format: plain });
    const newThread = `${channel.id};messageid=${opened?.messageId}`;
    expect(teams.messages(newThread).map((m) => text(m))).toContain('done');
    expect(await bot.adapter.openThread?.(`teams:${teams.personalChat(ada).id}`, 'x')).toBeUndefined();
  });

  it('an approval card: a stranger is refused privately, the requester allows, the tool runs', async () => {
    const ada = teams.person('Ada');
    const bob = teams.person('Bob');
    bot = await startTeamsBot(teams, anthropic, root, [ada, bob]);
    const channel = teams.channel([ada, bob]);
    anthropic.enqueue({
      text: 'Running it.',
      toolUse: [{ name: 'Bash', input: { command: 'echo approved-run' } }],
    });
    anthropic.enqueue({ text: 'It printed approved-run.' });
    const { activity } = await teams.userMessage(channel, 'run echo', { mentionBot: true, from: ada });
    const thread = String((activity.conversation as { id: string }).id);
    // The prompt as it was first shown (the stored message changes as the reply goes on).
    let shown = '';
    const card = await teams.waitForSent((m) => {
      const json = JSON.stringify(m.activity.attachments ?? []);
      if (m.conversationId !== thread || !json.includes('"Allow"')) return false;
      shown = json;
      return true;
    });
    const actions = JSON.parse(shown) as {
      content: { body: { actions: { title: string; verb: string; data: Record<string, unknown> }[] }[] };
    }[];
    const allow = actions[0]?.content.body.flatMap((row) => row.actions).find((a) => a.title === 'Allow');
    expect(allow).toBeDefined();

    const byBob = await teams.cardAction(channel, card.id, allow?.verb ?? '', allow?.data ?? {}, {
      from: bob,
    });
    expect(byBob.answer.status).toBe(200);
    expect(byBob.answer.late).toBe(false);
    expect(JSON.stringify(byBob.answer.body)).toMatch(/Only Ada or an admin can answer this/);
    expect(anthropic.requests.length).toBe(1);

    const byAda = await teams.cardAction(channel, card.id, allow?.verb ?? '', allow?.data ?? {}, {
      from: ada,
    });
    expect(byAda.answer.status).toBe(200);
    expect(byAda.answer.late).toBe(false);
    await reply(thread, 'It printed approved-run.');
    expect(JSON.stringify(anthropic.requests.at(-1)?.messages)).toContain('approved-run');
  });

  it('a 429 from the Bot Connector is waited out by the core and the reply still arrives', async () => {
    const ada = teams.person('Ada');
    bot = await startTeamsBot(teams, anthropic, root, [ada], { streaming: false });
    const chat = teams.personalChat(ada);
    teams.faults.push({ op: 'send', status: 429, retryAfterSec: 1, times: 1 });
    await teams.userMessage(chat, 'hello');
    await reply(chat.id, 'Ada said: hello');
    const sends = teams.calls.filter((c) => c.op === 'send' && c.conversationId === chat.id);
    expect(sends[0]?.status).toBe(429);
    expect(sends.some((c) => c.status === 201 || c.status === 200)).toBe(true);
  });

  it('refuses every broken token with 401 before anything runs', async () => {
    const ada = teams.person('Ada');
    bot = await startTeamsBot(teams, anthropic, root, [ada]);
    const chat = teams.personalChat(ada);
    for (const auth of ['none', ...BROKEN_TOKENS] as const) {
      const { answer } = await teams.userMessage(chat, `sneaky ${auth}`, { auth });
      expect({ auth, status: answer.status }).toEqual({ auth, status: 401 });
    }
    expect(anthropic.requests).toEqual([]);
    expect(teams.messages(chat.id)).toEqual([]);
    // A valid one still gets through afterwards.
    await teams.userMessage(chat, 'real');
    await reply(chat.id, 'Ada said: real');
  });

  it("the SDK's DANGEROUSLY_ALLOW_UNAUTHENTICATED_REQUESTS variable does not switch the token check off", async () => {
    const ada = teams.person('Ada');
    process.env.DANGEROUSLY_ALLOW_UNAUTHENTICATED_REQUESTS = 'true';
    cleanups.push(() => {
      delete process.env.DANGEROUSLY_ALLOW_UNAUTHENTICATED_REQUESTS;
    });
    bot = await startTeamsBot(teams, anthropic, root, [ada]);
    const chat = teams.personalChat(ada);
    // Signed by an endorsed key, so only the SDK's part of the check can refuse it.
    const { answer } = await teams.userMessage(chat, 'sneaky', { auth: 'wrong-audience' });
    expect(answer.status).toBe(401);
    expect(anthropic.requests).toEqual([]);
  });

  it('the allowlist: a stranger is told they are not allowed and nothing runs for them', async () => {
    const ada = teams.person('Ada');
    const eve = teams.person('Eve');
    bot = await startTeamsBot(teams, anthropic, root, [ada]);
    const chat = teams.personalChat(eve);
    await teams.userMessage(chat, 'let me in');
    await teams.waitForSent((m) => m.conversationId === chat.id);
    expect(text(lastMessage(chat.id) as StoredActivity)).toContain(eve.aadObjectId);
    expect(anthropic.requests).toEqual([]);
  });
});
