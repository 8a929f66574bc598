/**
 * Teams end to end: the real Teams SDK inside the adapter, the bot core and
 * a real session, against the fake Bot Connector and identity
 * (test/fakes/teams) and the fake Anthropic API. The fake posts activities
 * with the tokens Teams would sign, enforces the documented limits, and
 * keeps what the bot sent as people would see it.
 */

import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeAnthropic, startFakeAnthropic } from '../../fakes/anthropic.js';
import { PNG_1X1 } from '../../fakes/images.js';
import {
  BROKEN_TOKENS,
  type FakeTeams,
  type StoredActivity,
  startFakeTeams,
} from '../../fakes/teams/index.js';
import { echo } from '../../helpers/bot-harness.js';
import { useCleanups } from '../../helpers/cleanups.js';
import { putWorkspaceFile } from '../../helpers/files-out.js';
import { startTeamsBot, type TeamsBot } from './bot.js';

const cleanups = useCleanups();

const text = (a: StoredActivity) => String(a.activity.text ?? '');

/** Waits until the bot's newest message in the conversation reads `expected`. */
async function replyIn(teams: FakeTeams, conversationId: string, expected: string): Promise<StoredActivity> {
  const last = () => teams.messages(conversationId).at(-1);
  await teams.waitForSent(() => {
    const message = last();
    return message !== undefined && text(message) === expected;
  });
  return last() as StoredActivity;
}

describe('Teams end to end', () => {
  let teams: FakeTeams;
  let anthropic: FakeAnthropic;
  let root: string;
  let bot: TeamsBot | undefined;

  beforeEach(async () => {
    teams = await startFakeTeams();
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
    // Paced like a model that takes a few seconds, so Teams' one-request-a-second rule shows.
    anthropic.enqueue({ text: ['Here is ', 'the **answer**', ' in parts', '.'], chunkDelayMs: 1000 });
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
    anthropic.enqueue({ text: Array.from({ length: 30 }, (_, i) => `part ${i}. `), chunkDelayMs: 500 });
    await teams.userMessage(chat, 'talk for a while');
    const streaming = await teams.waitForCall(
      (c) => c.op === 'send' && c.status < 300 && JSON.stringify(c.body).includes('"streamType":"streaming"'),
    );
    const stream = teams.allStreams.find((s) => s.conversationId === chat.id);
    expect(streaming).toBeDefined();
    teams.cancelStream(stream?.id ?? '');
    await reply(chat.id, '⏹ Stopped the current reply.');
    expect(stream?.state).toBe('cancelled');
  });

  it('a channel thread gets its reply in the thread, edited in place, never streamed', async () => {
    const ada = teams.person('Ada');
    bot = await startTeamsBot(teams, anthropic, root, [ada]);
    const channel = teams.channel([ada]);
    anthropic.enqueue({ text: ['First part, ', 'second part, ', 'the end.'], chunkDelayMs: 1200 });
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
    await bot.adapter.send(opened?.chat ?? '', { text: 'done', format: 'plain' });
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

describe('Teams files and restarts', () => {
  let teams: FakeTeams;
  let anthropic: FakeAnthropic;
  let root: string;
  const bots: TeamsBot[] = [];

  beforeEach(async () => {
    teams = await startFakeTeams();
    anthropic = await startFakeAnthropic();
    anthropic.setDefault((body) => ({ text: echo(body) }));
    root = await cleanups.tempRoot('teams-files');
  });

  const reply = (conversationId: string, expected: string) => replyIn(teams, conversationId, expected);

  afterEach(async () => {
    for (const b of bots.splice(0)) await b.stop();
    await teams.close();
    await anthropic.close();
  });

  it('a shared file and an inline image reach the model; the image is fetched with the bot token', async () => {
    const ada = teams.person('Ada');
    bots.push(await startTeamsBot(teams, anthropic, root, [ada]));
    const chat = teams.personalChat(ada);
    const notes = teams.attachFile('notes.txt', Buffer.from('the secret word is heliotrope\n'), 'text/plain');
    const image = teams.attachImage(Buffer.from(PNG_1X1, 'base64'));
    await teams.userMessage(chat, 'read these', { attachments: [notes, image] });
    await teams.waitForSent(
      (m) => m.conversationId === chat.id && String(m.activity.text ?? '').includes('said'),
    );
    const sent = JSON.stringify(anthropic.requests[0]?.messages);
    expect(sent).toContain('heliotrope');
    expect(sent).toContain('"type":"image"');
    const download = teams.calls.find((c) => c.op === 'attachment');
    expect(download?.status).toBe(200);
  });

  it('SendFile in a personal chat: a consent card, the person accepts, the bytes land in their OneDrive, a file card follows', async () => {
    const ada = teams.person('Ada');
    bots.push(await startTeamsBot(teams, anthropic, root, [ada], { streaming: false }));
    await putWorkspaceFile(join(root, 'workspace'), 'report.csv', 'quarter,revenue\nq3,12\n');
    anthropic.enqueue(
      { text: 'Here it is.', toolUse: [{ name: 'SendFile', input: { file_path: 'report.csv' } }] },
      { text: 'Sent.' },
    );
    const chat = teams.personalChat(ada);
    await teams.userMessage(chat, 'send me the report');
    const card = await teams.waitForSent((m) =>
      JSON.stringify(m.activity.attachments ?? []).includes(
        'application/vnd.microsoft.teams.card.file.consent',
      ),
    );
    expect(JSON.stringify(card.activity.attachments)).toContain('"sizeInBytes":22');
    const { answer, upload } = await teams.fileConsent(chat, card.id, 'accept');
    expect(answer.status).toBe(200);
    expect(answer.late).toBe(false);
    const info = await teams.waitForSent((m) =>
      JSON.stringify(m.activity.attachments ?? []).includes('application/vnd.microsoft.teams.card.file.info'),
    );
    expect(upload?.bytes?.toString()).toBe('quarter,revenue\nq3,12\n');
    expect(JSON.stringify(info.activity.attachments)).toContain('report.csv');
  });

  it('a consent for a file the bot no longer holds is answered, and nothing is uploaded', async () => {
    const ada = teams.person('Ada');
    const first = await startTeamsBot(teams, anthropic, root, [ada], { streaming: false });
    await putWorkspaceFile(join(root, 'workspace'), 'a.txt', 'hello');
    anthropic.enqueue(
      { text: 'File:', toolUse: [{ name: 'SendFile', input: { file_path: 'a.txt' } }] },
      { text: 'Done.' },
    );
    const chat = teams.personalChat(ada);
    await teams.userMessage(chat, 'send it');
    const card = await teams.waitForSent((m) =>
      JSON.stringify(m.activity.attachments ?? []).includes('file.consent'),
    );
    await first.stop();
    bots.push(await startTeamsBot(teams, anthropic, root, [ada], { streaming: false }));
    const { answer, upload } = await teams.fileConsent(chat, card.id, 'accept');
    expect(answer.status).toBe(200);
    await reply(chat.id, 'That file is no longer available here; ask me to send it again.');
    expect(upload?.bytes).toBeUndefined();
  });

  it("a conversation's endpoint survives a restart: the new bot posts into a chat it has not heard from since", async () => {
    const ada = teams.person('Ada');
    const first = await startTeamsBot(teams, anthropic, root, [ada], { streaming: false });
    const chat = teams.personalChat(ada);
    await teams.userMessage(chat, 'hello');
    await teams.waitForSent((m) => m.conversationId === chat.id && m.activity.text === 'Ada said: hello');
    await first.stop();
    const second = await startTeamsBot(teams, anthropic, root, [ada], { streaming: false });
    bots.push(second);
    // Nothing has arrived since the restart; the bot still knows where this chat is served.
    await second.adapter.send(`teams:${chat.id}`, { text: 'still here', format: 'plain' });
    expect(teams.messages(chat.id).at(-1)?.activity.text).toBe('still here');
  });
});
