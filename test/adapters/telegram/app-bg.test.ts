/**
 * `/bg` on Telegram end to end: the real grammy bot and core against the fake
 * Bot API and the fake Anthropic API. In a forum supergroup the work gets a
 * forum topic of its own (createForumTopic) and a one-line result with the
 * topic's link comes back where it was asked; a private chat, or a forum
 * where the bot may not open topics, gets the marked reply in the chat.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { messageUpdate } from '../../fakes/telegram/index.js';
import { ANN, type AppWorld, createAppWorld } from './app-harness.js';

let world: AppWorld;
/** A supergroup: its MTProto channel id, in links, is 500. */
const GROUP = -100500;

afterEach(async () => {
  await world?.close();
});

const texts = (chatId: number, threadId?: number) =>
  world.telegram.botMessages(chatId, threadId).map((m) => m.text);
const topicCalls = () => world.telegram.state.calls.filter((c) => c.method === 'createForumTopic');

/** Starts the app with GROUP a forum (or not), asks `/bg <prompt>` in its topic 3 and waits for `until` there. */
async function bgInForumTopic(canManageTopics: boolean, answer: string, prompt: string, until: string) {
  world = await createAppWorld();
  world.telegram.state.forums.set(GROUP, { canManageTopics });
  const app = await world.start();
  world.anthropic.enqueue({ text: answer });
  world.telegram.pushUpdate(
    messageUpdate({ chatId: GROUP, user: ANN, threadId: 3 }, `/bg@switchboard_bot ${prompt}`),
  );
  await world.telegram.waitFor(() => texts(GROUP, 3).some((t) => t.startsWith(until)), 15_000);
  return app;
}

describe('Telegram end to end: /bg', () => {
  it('opens a forum topic, answers in it, and links it from the topic where /bg was asked', async () => {
    await bgInForumTopic(true, 'Research done: 42.', 'research the answer', '🧵 Background done');

    const topics = [...world.telegram.state.topics];
    expect(topics.map(([, t]) => t.name)).toEqual(['🧵 Background: research the answer']);
    const threadId = Number(topics[0]?.[0].split('/')[1]);
    expect(texts(GROUP, threadId)).toEqual(['🧵 Background: research the answer', 'Research done: 42.']);
    const line = texts(GROUP, 3).find((t) => t.startsWith('🧵 Background done')) as string;
    expect(line).toContain('Research done: 42.');
    const sent = world.telegram.state.calls.filter(
      (c) => c.method.startsWith('send') && c.params.message_thread_id === 3 && c.outcome === 'ok',
    );
    expect(JSON.stringify(sent.at(-1)?.params)).toContain(`https://t.me/c/500/${threadId}`);
    expect(JSON.stringify(world.anthropic.requests[0].messages)).toContain('research the answer');
  });

  it('answers /bg in a private chat with a marked reply in the chat, opening no topic', async () => {
    world = await createAppWorld();
    await world.start();
    world.anthropic.enqueue({ text: 'Private research done.' });
    world.telegram.pushUpdate(messageUpdate({ chatId: ANN.id, user: ANN }, '/bg research privately'));
    await world.telegram.waitFor(
      () => texts(ANN.id).some((t) => t.startsWith('🧵 Background result')),
      15_000,
    );
    expect(texts(ANN.id)[0]).toBe('🧵 Background: research privately');
    expect(texts(ANN.id).at(-1)).toContain('Private research done.');
    expect(topicCalls()).toEqual([]);
  });

  it('falls back to a marked reply, and logs why, where Telegram refuses the topic', async () => {
    const app = await bgInForumTopic(
      false,
      'Done without a topic.',
      'research anyway',
      '🧵 Background result',
    );
    expect(texts(GROUP, 3)[0]).toBe('🧵 Background: research anyway');
    expect(texts(GROUP, 3).at(-1)).toContain('Done without a topic.');
    expect(topicCalls().map((c) => [c.outcome, c.description])).toEqual([
      [400, 'Bad Request: not enough rights to create a topic'],
    ]);
    expect(world.telegram.state.topics.size).toBe(0);
    expect(app.lines.some((l) => l.includes('Manage topics'))).toBe(true);
  });

  it('falls back in a group without topics, and asks Telegram only once', async () => {
    world = await createAppWorld();
    await world.start();
    world.anthropic.enqueue({ text: 'First.' }, { text: 'Second.' });
    world.telegram.pushUpdate(messageUpdate({ chatId: GROUP, user: ANN }, '/bg@switchboard_bot first'));
    await world.telegram.waitFor(() => texts(GROUP).some((t) => t.includes('First.')), 15_000);
    world.telegram.pushUpdate(messageUpdate({ chatId: GROUP, user: ANN }, '/bg@switchboard_bot second'));
    await world.telegram.waitFor(() => texts(GROUP).some((t) => t.includes('Second.')), 15_000);
    expect(topicCalls().map((c) => [c.outcome, c.description])).toEqual([
      [400, 'Bad Request: the chat is not a forum'],
    ]);
  });
});
