/**
 * End to end: a long reply in a private chat on a Bot API server without
 * rich messages. The first draft answers 404, the adapter switches to
 * classic 4096-character messages and the core re-splits the reply; its
 * messages must still appear in the reply's order.
 */
import { afterEach, expect, it } from 'vitest';
import { messageUpdate } from '../../fakes/telegram/index.js';
import { ANN, type AppWorld, createAppWorld } from './app-harness.js';

let world: AppWorld;

afterEach(async () => {
  await world?.close();
});

it('keeps a long reply in order when the first draft finds rich messages gone and the reply is re-split', async () => {
  world = await createAppWorld();
  await world.start();
  // The server lost rich messages after the adapter started using them.
  world.telegram.rich = false;
  const paragraphs = Array.from(
    { length: 30 },
    (_, i) => `Paragraph ${i + 1}: ${'lorem ipsum dolor sit amet '.repeat(11).trim()}.`,
  );
  world.anthropic.enqueue({ text: paragraphs.join('\n\n') });
  world.telegram.pushUpdate(messageUpdate({ chatId: 11, user: ANN }, 'a long essay please'));
  const texts = () => world.telegram.botMessages(11).map((m) => m.text);
  await world.telegram.waitFor(() => texts().some((t) => t.includes('Paragraph 30:')), 20_000);
  expect(texts().map((t) => t.slice(0, 13))).toEqual(['Paragraph 1: ', 'Paragraph 14:', 'Paragraph 27:']);
  const shown = texts().flatMap((t) => [...t.matchAll(/Paragraph (\d+):/g)].map((m) => Number(m[1])));
  expect(shown).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  expect(world.telegram.state.calls.filter((c) => c.outcome === 429)).toEqual([]);
});
