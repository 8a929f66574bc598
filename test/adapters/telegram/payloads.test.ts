/**
 * Every kind of Telegram update, as the Bot API sends it, replayed into the
 * ready bot (`npm start`'s startSwitchboard) through the real grammy against
 * the fake: from an allowed user and from a stranger, in a private chat and
 * in a group, each followed by a plain message that must still be answered.
 * Then malformed updates, which must neither stop the process nor polling.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageUpdate } from '../../fakes/telegram/index.js';
import {
  addressedForeignCommand,
  bareForeignCommand,
  forwardedPhoto,
  forwardedText,
  malformed,
  memberJoined,
  myChatMember,
  otherBot,
  otherBotsCommand,
  stickerOnly,
  type TelegramFixture,
  type TelegramScene,
} from '../../fixtures/telegram.js';
import { watchUnhandled } from '../../reliability/telegram-world.js';
import { ANN, type AppWorld, createAppWorld } from './app-harness.js';

const EVE = { id: 33, first_name: 'Eve' };
const GROUP = -100777;
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

describe('Telegram updates as the platform sends them', () => {
  let world: AppWorld;
  let pings = 0;
  let watch: ReturnType<typeof watchUnhandled>;

  beforeAll(async () => {
    watch = watchUnhandled();
    // Every fixture is followed by a message that must be answered, in two chats: at
    // Telegram's paces the run mostly waited on them. Both sides are scaled down tenfold.
    world = await createAppWorld({}, { scale: 10 });
    await world.start();
  });

  afterAll(async () => {
    await world?.close();
    watch.stop();
  });

  const scene = (user: { id: number; first_name: string }, chatId = user.id): TelegramScene => ({
    chatId,
    user,
    botUsername: 'switchboard_bot',
  });
  const replay = (fixture: TelegramFixture, s: TelegramScene) =>
    world.telegram.pushUpdate(fixture.update(s) as Parameters<AppWorld['telegram']['pushUpdate']>[0]);
  const texts = (chatId: number) => world.telegram.botMessages(chatId).map((m) => m.text);

  /**
   * Ann's plain message in `chatId` is answered. Updates of one chat are
   * handled in order, so whatever the fixture before it caused there is
   * visible by then.
   */
  async function stillAnswers(chatId = ANN.id): Promise<void> {
    const text = `plain message ${++pings}`;
    const addressed = chatId < 0 ? `@switchboard_bot ${text}` : text;
    world.telegram.pushUpdate(messageUpdate({ chatId, user: ANN }, addressed));
    await world.telegram.waitFor(() => texts(chatId).some((t) => t.includes(text)), 10_000);
    expect(watch.errors).toEqual([]);
  }

  it('a sticker-only message gets one line; a stranger is refused', async () => {
    replay(stickerOnly, scene(ANN));
    await stillAnswers();
    expect(texts(ANN.id)).toContain("I can't read stickers yet; please send text.");
    replay(stickerOnly, scene(EVE));
    await world.telegram.waitFor(() => texts(EVE.id).some((t) => /not allowed/.test(t)), 10_000);
    await stillAnswers();
  });

  it('a forwarded text reaches the model marked as forwarded, with its text', async () => {
    replay(forwardedText, scene(ANN));
    await world.telegram.waitFor(() => texts(ANN.id).some((t) => t.includes('the deploy failed at step 3')));
    const asked = JSON.stringify(world.anthropic.requests.at(-1).messages);
    expect(asked).toContain('(Forwarded from Carol)');
    expect(asked).toContain('the deploy failed at step 3');
    await stillAnswers();
  });

  it('a forwarded photo reaches the model with its caption and the image', async () => {
    const fileId = world.telegram.addFile(PNG, 'photos/graph.png');
    const before = world.anthropic.requests.length;
    replay(forwardedPhoto(fileId), scene(ANN));
    await world.telegram.waitFor(() => texts(ANN.id).some((t) => t.includes('incident graph')));
    const request = world.anthropic.requests
      .slice(before)
      .find((r) => JSON.stringify(r.messages).includes('incident graph'));
    const blocks = request.messages.at(-1).content as { type: string; source?: { data?: string } }[];
    expect(blocks.some((b) => b.type === 'image' && b.source?.data === PNG.toString('base64'))).toBe(true);
    expect(JSON.stringify(blocks)).toContain('(Forwarded from Status page)');
    await stillAnswers();
  });

  it('a bare /report in a group is left to the bot it belongs to; in a private chat it is answered', async () => {
    replay(bareForeignCommand, scene(ANN, GROUP));
    replay(otherBotsCommand, scene(ANN, GROUP));
    await stillAnswers(GROUP);
    expect(texts(GROUP).filter((t) => /Unknown command/.test(t))).toEqual([]);

    replay(addressedForeignCommand, scene(ANN, GROUP));
    await stillAnswers(GROUP);
    expect(texts(GROUP)).toContain('Unknown command /report. Try /help.');

    replay(bareForeignCommand, scene(ANN));
    await stillAnswers();
    expect(texts(ANN.id)).toContain('Unknown command /report. Try /help.');
  });

  it('service messages, other bots and membership updates are ignored', async () => {
    const before = texts(GROUP).length;
    replay(memberJoined, scene(ANN, GROUP));
    replay(otherBot, scene(ANN, GROUP));
    replay(myChatMember, scene(ANN, GROUP));
    await stillAnswers(GROUP);
    // Only the plain message's answer was added.
    expect(texts(GROUP)).toHaveLength(before + 1);
  });

  describe('malformed and incomplete updates', () => {
    for (const fixture of malformed) {
      it(`${fixture.name}: the process and polling keep running`, async () => {
        replay(fixture, scene(ANN));
        await stillAnswers();
      });
    }
  });
});
