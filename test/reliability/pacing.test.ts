/**
 * Pacing under latency, at Telegram's real paces: one slow request must not
 * make the next one break Telegram's limit. Telegram counts a call when it
 * processes it; if a draft update spends 400 ms on the way, the next update
 * must still reach Telegram at least a second after it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { messageUpdate } from '../fakes/telegram/index.js';
import { startTelegramWorld, type TelegramWorld } from './telegram-world.js';

let world: TelegramWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('pacing under latency', () => {
  // The outbox paces a message from when its previous call completed, not when it started.
  it('a slow draft update does not cause a 429 on the next one', async () => {
    world = await startTelegramWorld({ factor: 1, allowed: [61] });
    const w = world;
    const chunks = Array.from({ length: 12 }, (_, i) => `Part ${i + 1} of the answer. `);
    w.anthropic.enqueue({ text: chunks, chunkDelayMs: 250 });
    w.telegram.fault({ method: 'sendRichMessageDraft', kind: 'slow', delayMs: 400, times: 1 });
    w.telegram.pushUpdate(messageUpdate({ chatId: 61, user: { id: 61 } }, 'a slow network today'));
    const full = chunks.join('').trim();
    await w.telegram.waitFor(() => w.texts(61).some((t) => t.trim() === full), 15_000);
    const drafts = w.telegram.state.calls.filter((c) => c.method === 'sendRichMessageDraft');
    expect(drafts.length).toBeGreaterThanOrEqual(2);
    expect(w.telegram.state.calls.filter((c) => c.outcome === 429)).toEqual([]);
  }, 20_000);
});
