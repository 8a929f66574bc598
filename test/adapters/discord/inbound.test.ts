import { afterEach, describe, expect, it } from 'vitest';
import { THREAD_REFUSED } from '../../../adapters/discord/inbound.js';
import { COMMANDS, createDiscordAdapter } from '../../../adapters/discord/index.js';
import { discordMarkdown } from '../../../adapters/discord/markdown.js';
import type { ChatEvent, EditEvent, MessageEvent } from '../../../src/bot/adapter-contract.js';
import { COMMANDS as CORE_COMMANDS } from '../../../src/bot/index.js';
import { EventLog, mention, type Rig, startRig } from './helpers.js';

const isMessage = (e: ChatEvent): e is MessageEvent => e.type === 'message';
const isEdit = (e: ChatEvent): e is EditEvent => e.type === 'edit';

describe('Discord adapter: inbound messages', () => {
  let rig: Rig | undefined;
  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });

  it('registers the application commands to the configured guild at start-up', async () => {
    rig = await startRig();
    const names = (rig.fake.commands.get(rig.fake.guildId) ?? []).map((c) => c.name);
    expect(names).toEqual([
      'ask',
      'new',
      'compact',
      'rename',
      'stop',
      'status',
      'cost',
      'budget',
      'rules',
      'tools',
      'mcp',
      'sessions',
      'resume',
      'fork',
      'mode',
      'schedule',
      'schedules',
      'unschedule',
      'timezone',
      'btw',
      'bg',
      'busy',
      'web',
      'help',
    ]);
    expect(rig.fake.commands.has('global')).toBe(false);
    const mode = rig.fake.commands.get(rig.fake.guildId)?.find((c) => c.name === 'mode') as {
      options: { choices: { value: string }[] }[];
    };
    expect(mode.options[0]?.choices.map((c) => c.value)).toEqual([
      'plan',
      'default',
      'acceptEdits',
      'bypassPermissions',
    ]);
  });

  it('registers every command the bot core knows, plus /ask', async () => {
    const adapterNames = COMMANDS.map((c) => c.name).filter((n) => n !== 'ask');
    expect(adapterNames.sort()).toEqual(Object.keys(CORE_COMMANDS).sort());
  });

  it('registers globally when no guild is configured', async () => {
    rig = await startRig({}, { guildId: undefined as unknown as string });
    expect(rig.fake.commands.get('global')?.length).toBe(24);
  });

  it('opens a thread from a mention in a text channel and emits the message for the thread', async () => {
    rig = await startRig();
    const { fake, log } = rig;
    const alice = fake.user('alice');
    const original = fake.userMessage({
      channelId: fake.generalId,
      author: alice,
      content: `${mention(fake)}  what is in the repo?`,
    });
    const event = await log.next(isMessage);
    const [thread] = fake.threadsOf(fake.generalId);
    expect(thread).toBeDefined();
    expect(thread?.id).toBe(original.id);
    expect(thread?.name).toBe('what is in the repo?');
    expect(event).toMatchObject({
      chat: `discord:${thread?.id}`,
      text: 'what is in the repo?',
      messageId: original.id,
      deliveryId: original.id,
      user: { id: alice.id, name: 'Alice' },
    });
  });

  it('continues a session thread without a mention and ignores channels, bots and itself', async () => {
    rig = await startRig();
    const { fake, log } = rig;
    const alice = fake.user('alice');
    fake.userMessage({ channelId: fake.generalId, author: alice, content: 'no mention here' });
    fake.userMessage({
      channelId: fake.generalId,
      author: { ...fake.user('robot'), bot: true },
      content: `${mention(fake)} hi`,
    });
    fake.userMessage({ channelId: fake.generalId, author: alice, content: `${mention(fake)} start` });
    const first = await log.next(isMessage);
    const threadId = first.chat.split(':')[1]!;
    fake.userMessage({ channelId: threadId, author: fake.user('bob'), content: 'and a follow-up' });
    const second = await log.next((e): e is MessageEvent => isMessage(e) && e.text === 'and a follow-up');
    expect(second.chat).toBe(first.chat);
    expect(second.user.name).toBe('Bob');
    await rig.adapter.send(first.chat, { text: 'bot text', format: discordMarkdown });
    fake.userMessage({ channelId: threadId, author: alice, content: 'third' });
    await log.next((e) => isMessage(e) && e.text === 'third');
    expect(log.events.map((e) => (e as MessageEvent).text)).toEqual(['start', 'and a follow-up', 'third']);
  });

  it("joins someone else's thread only when mentioned there", async () => {
    rig = await startRig();
    const { fake, log } = rig;
    const alice = fake.user('alice');
    const theirs = fake.userThread(fake.generalId, alice, 'planning');
    fake.userMessage({ channelId: theirs.id, author: alice, content: 'just us humans' });
    fake.userMessage({ channelId: theirs.id, author: alice, content: `${mention(fake)} help us` });
    fake.userMessage({ channelId: theirs.id, author: alice, content: 'thanks' });
    await log.next((e) => isMessage(e) && e.text === 'thanks');
    expect(log.events.map((e) => [e.chat, (e as MessageEvent).text])).toEqual([
      [`discord:${theirs.id}`, 'help us'],
      [`discord:${theirs.id}`, 'thanks'],
    ]);
  });

  it('says what permission is missing when Discord refuses to open a thread', async () => {
    rig = await startRig();
    const { fake, log } = rig;
    fake.addFault({ route: 'POST /channels/:id/messages/:id/threads', status: 403 });
    const asked = fake.userMessage({
      channelId: fake.generalId,
      author: fake.user('alice'),
      content: `${mention(fake)} hi`,
    });
    const refusal = await fake.waitFor(
      () => fake.botMessages(fake.generalId).find((m) => m.message_reference?.message_id === asked.id),
      'refusal',
    );
    expect(refusal.content).toBe(THREAD_REFUSED);
    expect(log.events).toHaveLength(0);
  });

  it('downloads images and documents for the core and describes audio and video by kind', async () => {
    rig = await startRig();
    const { fake, log } = rig;
    const alice = fake.user('alice');
    const dm = fake.dmChannel(alice);
    const png = Buffer.from('89504e470d0a1a0a', 'hex');
    const pdf = Buffer.from('%PDF-1.4');
    fake.userMessage({
      channelId: dm.id,
      author: alice,
      content: 'what is this?',
      files: [
        { filename: 'shot.png', contentType: 'image/png', data: png },
        { filename: 'notes.pdf', contentType: 'application/pdf', data: pdf },
        { filename: 'clip.mp4', contentType: 'video/mp4', data: Buffer.alloc(3) },
      ],
    });
    const event = await log.next(isMessage);
    expect(event.attachments).toEqual([
      { kind: 'image', name: 'shot.png', mediaType: 'image/png', size: png.length, bytes: png },
      { kind: 'document', name: 'notes.pdf', mediaType: 'application/pdf', size: pdf.length, bytes: pdf },
      { kind: 'video', name: 'clip.mp4', mediaType: 'video/mp4', size: 3 },
    ]);
  });

  it('refuses an attachment over the file limit from its size, and gives up on one that stalls', async () => {
    rig = await startRig({}, { maxFileBytes: 100, downloadTimeoutMs: 300 });
    const { fake, log } = rig;
    const alice = fake.user('alice');
    const dm = fake.dmChannel(alice);
    fake.userMessage({
      channelId: dm.id,
      author: alice,
      content: 'two files',
      files: [
        { filename: 'big.log', contentType: 'text/plain', data: Buffer.alloc(101, 65) },
        { filename: 'slow.txt', contentType: 'text/plain', data: Buffer.alloc(50, 65), stall: true },
      ],
    });
    const event = await log.next(isMessage);
    expect(event.attachments).toEqual([
      {
        kind: 'document',
        name: 'big.log',
        mediaType: 'text/plain',
        size: 101,
        problem: 'too-large',
        limitBytes: 100,
      },
      { kind: 'document', name: 'slow.txt', mediaType: 'text/plain', size: 50, problem: 'download-failed' },
    ]);
  });

  it('treats a DM as one session where every message counts', async () => {
    rig = await startRig();
    const { fake, log } = rig;
    const alice = fake.user('alice');
    const dm = fake.dmChannel(alice);
    fake.userMessage({ channelId: dm.id, author: alice, content: 'hello there' });
    fake.userMessage({ channelId: dm.id, author: alice, content: `${mention(fake)} and again` });
    await log.next((e) => isMessage(e) && e.text === 'and again');
    expect(log.events.map((e) => [e.chat, (e as MessageEvent).text])).toEqual([
      [`discord:dm:${dm.id}`, 'hello there'],
      [`discord:dm:${dm.id}`, 'and again'],
    ]);
  });

  it('turns edits of the opening message and of thread messages into edit events', async () => {
    rig = await startRig();
    const { fake, log } = rig;
    const alice = fake.user('alice');
    const opening = fake.userMessage({
      channelId: fake.generalId,
      author: alice,
      content: `${mention(fake)} first try`,
    });
    const started = await log.next(isMessage);
    fake.editUserMessage(opening.id, `${mention(fake)} second try`);
    const edit = await log.next(isEdit);
    expect(edit).toMatchObject({ chat: started.chat, messageId: opening.id, text: 'second try' });
    const inThread = fake.userMessage({ channelId: opening.id, author: alice, content: 'typo' });
    await log.next((e) => isMessage(e) && e.text === 'typo');
    fake.editUserMessage(inThread.id, 'fixed');
    const edit2 = await log.next((e): e is EditEvent => isEdit(e) && e.text === 'fixed');
    expect(edit2).toMatchObject({ chat: started.chat, messageId: inThread.id });
    expect(edit2.deliveryId).not.toBe(edit.deliveryId);
    expect(edit2.deliveryId).not.toBe(inThread.id);
  });

  it('after a restart, edits of messages it never saw arrive as edits of the thread', async () => {
    rig = await startRig();
    const { fake } = rig;
    const alice = fake.user('alice');
    fake.userMessage({ channelId: fake.generalId, author: alice, content: `${mention(fake)} start` });
    const started = await rig.log.next(isMessage);
    const threadId = started.chat.split(':')[1]!;
    const old = fake.userMessage({ channelId: threadId, author: alice, content: 'before restart' });
    await rig.log.next((e) => isMessage(e) && e.text === 'before restart');
    await rig.adapter.stop();
    const log = new EventLog();
    const again = createDiscordAdapter({ token: fake.token, apiUrl: fake.apiUrl, guildId: fake.guildId });
    await again.start(log.sink);
    rig = { ...rig, adapter: again, log };
    expect(again.describeChat?.(started.chat)).toBe('Discord thread "start"');
    fake.editUserMessage(old.id, 'edited after restart');
    const edit = await log.next(isEdit);
    expect(edit).toMatchObject({ chat: started.chat, messageId: old.id, text: 'edited after restart' });
  });

  it('keeps working after the gateway socket drops: it resumes and replays what it missed', async () => {
    rig = await startRig();
    const { fake, log } = rig;
    const alice = fake.user('alice');
    const dm = fake.dmChannel(alice);
    fake.gateway.drop();
    await fake.waitFor(() => !fake.gateway.connected, 'socket closed');
    fake.userMessage({ channelId: dm.id, author: alice, content: 'sent while down' });
    await fake.waitFor(
      () => fake.gateway.log.some((l) => l.op === 'resume') && fake.gateway.connected,
      'resume',
    );
    fake.userMessage({ channelId: dm.id, author: alice, content: 'sent after' });
    await log.next((e) => isMessage(e) && e.text === 'sent after');
    expect(log.events.map((e) => (e as MessageEvent).text)).toEqual(['sent while down', 'sent after']);
    expect(fake.gateway.log.filter((l) => l.op === 'identify')).toHaveLength(1);
  });
});
