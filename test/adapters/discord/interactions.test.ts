import { afterEach, describe, expect, it } from 'vitest';
import { THREAD_REFUSED } from '../../../adapters/discord/inbound.js';
import { OUTSIDE_SESSION_HINT } from '../../../adapters/discord/interactions.js';
import { discordMarkdown } from '../../../adapters/discord/markdown.js';
import type {
  ButtonEvent,
  ChatEvent,
  CommandEvent,
  MessageEvent,
} from '../../../src/bot/adapter-contract.js';
import { mention, type Rig, startRig } from './helpers.js';

const isMessage = (e: ChatEvent): e is MessageEvent => e.type === 'message';
const isCommand = (e: ChatEvent): e is CommandEvent => e.type === 'command';
const isButton = (e: ChatEvent): e is ButtonEvent => e.type === 'button';

async function openThread(rig: Rig): Promise<{ chat: string; threadId: string }> {
  const { fake, log } = rig;
  fake.userMessage({ channelId: fake.generalId, author: fake.user('alice'), content: `${mention(fake)} hi` });
  const event = await log.next(isMessage);
  return { chat: event.chat, threadId: event.chat.split(':')[1]! };
}

describe('Discord adapter: slash commands and buttons', () => {
  let rig: Rig | undefined;
  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });

  it('defers a command in a session thread and answers by editing the deferred reply', async () => {
    rig = await startRig();
    const { fake, log } = rig;
    const { chat, threadId } = await openThread(rig);
    const interaction = fake.slashCommand({
      channelId: threadId,
      user: fake.user('alice'),
      name: 'compact',
      options: { focus: 'keep the names' },
    });
    const event = await log.next(isCommand);
    expect(event).toMatchObject({
      chat,
      name: 'compact',
      args: 'keep the names',
      deliveryId: interaction.id,
    });
    expect(interaction.callbacks).toEqual([5]);
    await event.respond?.({ text: 'Compacted: 40% -> 5%' });
    await event.respond?.({ text: 'ignored second answer' });
    expect(fake.messages.get(interaction.originalId!)?.content).toBe('Compacted: 40% -> 5%');
    expect(fake.lateInteractionCallbacks).toBe(0);
  });

  it('answers /help privately and commands outside a session with an ephemeral hint', async () => {
    rig = await startRig();
    const { fake, log } = rig;
    const { threadId } = await openThread(rig);
    const help = fake.slashCommand({ channelId: threadId, user: fake.user('alice'), name: 'help' });
    const event = await log.next(isCommand);
    expect(help.ephemeral).toBe(true);
    await event.respond?.({ text: 'switchboard help' });
    const outside = fake.slashCommand({
      channelId: fake.generalId,
      user: fake.user('alice'),
      name: 'status',
    });
    await fake.waitFor(() => outside.callbacks.length > 0, 'hint');
    expect(outside.callbacks).toEqual([4]);
    expect(outside.ephemeral).toBe(true);
    expect(fake.messages.get(outside.originalId!)?.content).toBe(OUTSIDE_SESSION_HINT);
    expect(log.events.filter(isCommand)).toHaveLength(1);
  });

  it('/ask in a text channel opens a thread, sends the prompt there and points to it', async () => {
    rig = await startRig();
    const { fake, log } = rig;
    const interaction = fake.slashCommand({
      channelId: fake.generalId,
      user: fake.user('bob'),
      name: 'ask',
      options: { prompt: 'summarise README.md' },
    });
    const event = await log.next(isMessage);
    const [thread] = fake.threadsOf(fake.generalId);
    expect(thread?.id).toBe(interaction.originalId);
    expect(event).toMatchObject({
      chat: `discord:${thread?.id}`,
      text: 'summarise README.md',
      user: { name: 'Bob' },
      deliveryId: interaction.id,
    });
    const reply = await fake.waitFor(
      () =>
        fake.messages.get(interaction.originalId!)?.content.includes(`<#${thread?.id}>`) &&
        fake.messages.get(interaction.originalId!),
      'pointer',
    );
    expect(reply.content).toBe(`**Bob** asked: summarise README.md\n→ <#${thread?.id}>`);
    expect(interaction.callbacks).toEqual([5]);
  });

  it('/ask falls back to a standalone thread, and says why when no thread can be opened', async () => {
    rig = await startRig();
    const { fake, log } = rig;
    const removeFromMessage = fake.addFault({
      route: 'POST /channels/:id/messages/:id/threads',
      status: 403,
    });
    fake.slashCommand({
      channelId: fake.generalId,
      user: fake.user('bob'),
      name: 'ask',
      options: { prompt: 'one' },
    });
    const event = await log.next(isMessage);
    const [thread] = fake.threadsOf(fake.generalId);
    expect(event.chat).toBe(`discord:${thread?.id}`);
    removeFromMessage();
    fake.addFault({ route: /^POST \/channels\/:id(\/messages\/:id)?\/threads$/, status: 403 });
    const refused = fake.slashCommand({
      channelId: fake.generalId,
      user: fake.user('bob'),
      name: 'ask',
      options: { prompt: 'two' },
    });
    await fake.waitFor(
      () => fake.messages.get(refused.originalId ?? '')?.content.includes('permissions'),
      'refusal',
    );
    expect(fake.messages.get(refused.originalId!)?.content).toBe(`**Bob** asked: two\n${THREAD_REFUSED}`);
    expect(log.events.filter(isMessage)).toHaveLength(1);
  });

  it('/ask inside a session thread continues that session', async () => {
    rig = await startRig();
    const { fake, log } = rig;
    const { chat, threadId } = await openThread(rig);
    fake.slashCommand({
      channelId: threadId,
      user: fake.user('alice'),
      name: 'ask',
      options: { prompt: 'next' },
    });
    const event = await log.next((e): e is MessageEvent => isMessage(e) && e.text === 'next');
    expect(event.chat).toBe(chat);
    expect(fake.threadsOf(fake.generalId)).toHaveLength(1);
  });

  it('commands and /ask in a DM apply to the DM session', async () => {
    rig = await startRig();
    const { fake, log } = rig;
    const alice = fake.user('alice');
    const dm = fake.dmChannel(alice);
    fake.slashCommand({ channelId: dm.id, user: alice, name: 'rename', options: { name: 'my notes' } });
    const rename = await log.next(isCommand);
    expect(rename).toMatchObject({
      chat: `discord:dm:${dm.id}`,
      name: 'rename',
      args: 'my notes',
      user: { name: 'Alice' },
    });
    fake.slashCommand({ channelId: dm.id, user: alice, name: 'ask', options: { prompt: 'in private' } });
    const ask = await log.next(isMessage);
    expect(ask).toMatchObject({ chat: `discord:dm:${dm.id}`, text: 'in private' });
  });

  it('hands a button press to the core and answers it ephemerally', async () => {
    rig = await startRig();
    const { fake, log, adapter } = rig;
    const { chat } = await openThread(rig);
    const sent = await adapter.send(chat, {
      text: 'Allow Bash?',
      format: discordMarkdown,
      buttons: [[{ label: 'Allow', payload: 'a:k3j9x2', style: 'primary' }]],
    });
    const press = fake.pressButton({
      messageId: sent.messageId,
      user: fake.user('bob'),
      customId: 'a:k3j9x2',
    });
    const event = await log.next(isButton);
    expect(event).toMatchObject({
      chat,
      payload: 'a:k3j9x2',
      messageId: sent.messageId,
      user: { name: 'Bob' },
    });
    await event.respond({ text: 'Only Alice can answer this.', ephemeral: true });
    expect(press.callbacks).toEqual([4]);
    expect(press.ephemeral).toBe(true);
    expect(fake.messages.get(press.originalId!)?.content).toBe('Only Alice can answer this.');
  });

  it('acknowledges a press the core has not answered in time, then follows up', async () => {
    rig = await startRig({}, { ackDeadlineMs: 30 });
    const { fake, log, adapter } = rig;
    const { chat } = await openThread(rig);
    const sent = await adapter.send(chat, {
      text: 'Allow?',
      format: discordMarkdown,
      buttons: [[{ label: 'Allow', payload: 'a:slow' }]],
    });
    const press = fake.pressButton({
      messageId: sent.messageId,
      user: fake.user('alice'),
      customId: 'a:slow',
    });
    const event = await log.next(isButton);
    await fake.waitFor(() => press.callbacks.length > 0, 'deferUpdate');
    expect(press.callbacks).toEqual([6]);
    await event.respond({ text: 'Allowed once.', ephemeral: true });
    expect(press.followUpIds).toHaveLength(1);
    expect(fake.messages.get(press.followUpIds[0]!)?.content).toBe('Allowed once.');
    expect(fake.lateInteractionCallbacks).toBe(0);
  });

  it('answers an interaction even when the core fails', async () => {
    rig = await startRig();
    const { fake, log } = rig;
    const { threadId } = await openThread(rig);
    log.onEvent = () => {
      throw new Error('core exploded');
    };
    const interaction = fake.slashCommand({ channelId: threadId, user: fake.user('alice'), name: 'status' });
    await fake.waitFor(
      () => fake.messages.get(interaction.originalId ?? '')?.content.includes('went wrong'),
      'apology',
    );
    expect(interaction.callbacks).toEqual([5]);
  });

  it('the fake refuses interaction callbacks after the deadline and records them', async () => {
    rig = await startRig({ interactionDeadlineMs: -1 });
    const { fake } = rig;
    const { threadId } = await openThread(rig);
    const interaction = fake.slashCommand({ channelId: threadId, user: fake.user('alice'), name: 'status' });
    await fake.waitFor(() => interaction.late > 0, 'late callback');
    expect(interaction.callbacks).toEqual([]);
    expect(fake.lateInteractionCallbacks).toBe(1);
  });
});
