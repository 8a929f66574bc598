/**
 * The model's user links on Telegram, as the people in the chat get them:
 * the ready bot (npm start wiring) polling the fake Bot API, which says which
 * users a message mentions through tg://user links as Telegram reads them.
 * By default nobody, in rich messages streamed as drafts and in classic HTML
 * messages; SWITCHBOARD_ALLOW_MENTIONS=users makes them mentions.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { messageUpdate } from '../../fakes/telegram/index.js';
import { telegramMentions } from '../../fakes/telegram/mentions.js';
import { ANN, type AppWorld, createAppWorld } from './app-harness.js';

let world: AppWorld;

afterEach(async () => {
  await world?.close();
});

/** The model links to Bob (22) twice; returns whom the finished reply mentions, and what it reads. */
async function replyMentions(
  server: { rich: boolean },
  env: Record<string, string>,
): Promise<{ ids: number[]; text: string }> {
  world = await createAppWorld({ rich: server.rich, drafts: server.rich });
  await world.start(env);
  world.anthropic.enqueue({
    text: ['Ask [Bob](tg://', 'user?id=22) or <tg://user?id=22>.', ' Done.'],
    chunkDelayMs: 50,
  });
  world.telegram.pushUpdate(messageUpdate({ chatId: 11, user: ANN }, 'who knows?'));
  await world.telegram.waitFor(
    () => world.telegram.botMessages(11).some((m) => m.text.includes('Done.')),
    15_000,
  );
  const messages = world.telegram.botMessages(11);
  expect(messages.every((m) => m.rich === server.rich)).toBe(true);
  return { ids: messages.flatMap(telegramMentions), text: messages.map((m) => m.text).join('\n') };
}

describe('Telegram: user links the model writes', () => {
  it('by default mention nobody in a rich message streamed as drafts, and still read as written', async () => {
    const { ids, text } = await replyMentions({ rich: true }, {});
    expect(ids).toEqual([]);
    expect(text).toContain('Bob');
    expect(text).toContain('user?id=22');
  });

  it('by default mention nobody in a classic HTML message', async () => {
    const { ids, text } = await replyMentions({ rich: false }, {});
    expect(ids).toEqual([]);
    expect(text).toContain('Bob (tg://user?id=22)');
  });

  it('users: the links mention Bob, in rich and in classic messages', async () => {
    expect((await replyMentions({ rich: true }, { SWITCHBOARD_ALLOW_MENTIONS: 'users' })).ids).toEqual([
      22, 22,
    ]);
    await world.close();
    expect((await replyMentions({ rich: false }, { SWITCHBOARD_ALLOW_MENTIONS: 'users' })).ids).toEqual([
      22, 22,
    ]);
  });
});
