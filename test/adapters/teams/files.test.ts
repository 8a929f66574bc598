/**
 * Teams end to end, files and restarts: files people send reach the model,
 * files the agent sends go through Teams' consent card, and what a
 * conversation needs survives a restart. Real Teams SDK against the fake
 * Bot Connector (test/fakes/teams) and the fake Anthropic API, both sides at
 * Teams' pace divided by ten (scale.ts).
 */
// Slack's Socket Mode first, as in a bot with both platforms: its undici becomes the process's
// dispatcher, which Node's fetch (the Teams uploads) then goes through.
import '@slack/socket-mode';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { plain } from '../../../src/bot/format/dialect.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../fakes/anthropic.js';
import { PNG_1X1 } from '../../fakes/images.js';
import type { FakeTeams } from '../../fakes/teams/index.js';
import { echo } from '../../helpers/bot-harness.js';
import { useCleanups } from '../../helpers/cleanups.js';
import { putWorkspaceFile } from '../../helpers/files-out.js';
import { replyIn, startScaledFakeTeams, startTeamsBot, type TeamsBot } from './bot.js';

const cleanups = useCleanups();

describe('Teams files and restarts', () => {
  let teams: FakeTeams;
  let anthropic: FakeAnthropic;
  let root: string;
  const bots: TeamsBot[] = [];

  beforeEach(async () => {
    teams = await startScaledFakeTeams();
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
    await second.adapter.send(`teams:${chat.id}`, { text: 'still here', format: plain });
    expect(teams.messages(chat.id).at(-1)?.activity.text).toBe('still here');
  });
});
