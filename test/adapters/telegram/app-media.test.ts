/**
 * End to end for webhook mode, non-text messages and a faulty Bot API:
 * switchboard started as `npm start` starts it, against the fake Bot API and
 * the fake Anthropic API.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PNG_1X1 } from '../../fakes/images.js';
import { mediaUpdate, messageUpdate, photoUpdate } from '../../fakes/telegram/index.js';
import { ANN, type AppWorld, createAppWorld } from './app-harness.js';
import { freePort } from './helpers.js';

let world: AppWorld;
const dm = { chatId: 11, user: ANN };

afterEach(async () => {
  await world?.close();
});

const texts = () => world.telegram.botMessages(11).map((m) => m.text);
const hasText = (pattern: RegExp) => () => texts().some((t) => pattern.test(t));

describe('Telegram end to end: webhook mode, media, faults', () => {
  it('runs on a webhook with a secret: Telegram-signed updates get answers, forged ones 401', async () => {
    world = await createAppWorld();
    const port = await freePort();
    const app = await world.start({
      TELEGRAM_WEBHOOK_URL: `http://127.0.0.1:${port}/telegram`,
      TELEGRAM_WEBHOOK_SECRET: 'e2e_secret',
      TELEGRAM_WEBHOOK_PORT: String(port),
    });
    expect(world.telegram.state.webhook?.secret).toBe('e2e_secret');
    expect(world.telegram.state.webhook?.allowedUpdates).toContain('stopped_message_generation');
    expect(await world.telegram.deliverWebhook(messageUpdate(dm, 'forged'), 'not-the-secret')).toBe(401);
    world.telegram.pushUpdate(messageUpdate(dm, 'via webhook'));
    await world.telegram.waitFor(hasText(/You said: .*via webhook/), 10_000);
    expect(texts().some((t) => t.includes('forged'))).toBe(false);
    expect(world.anthropic.requests).toHaveLength(1);
    await app.stop();
  });

  it('passes a photo to the model as an image, and answers a sticker with one line', async () => {
    world = await createAppWorld();
    await world.start();
    // A whole (1 x 1) PNG: an unreadable image is refused before it reaches the model.
    const png = Buffer.from(PNG_1X1, 'base64');
    const fileId = world.telegram.addFile(png, 'photos/cat.png');
    world.telegram.pushUpdate(photoUpdate(dm, fileId, 'what is in this picture?'));
    await world.anthropic.waitFor(() => world.anthropic.requests.length === 1);
    const request = JSON.stringify(world.anthropic.requests[0].messages);
    expect(request).toContain(png.toString('base64'));
    expect(request).toContain('image/png');
    await world.telegram.waitFor(hasText(/You said: .*what is in this picture/), 10_000);

    world.telegram.pushUpdate(mediaUpdate(dm, 'sticker'));
    await world.telegram.waitFor(hasText(/stickers/), 10_000);
    expect(world.anthropic.requests).toHaveLength(1);
  });

  it('a photo over SWITCHBOARD_MAX_FILE_MB whose file_size is absent is cut off, refused, and the person is told', async () => {
    world = await createAppWorld();
    await world.start({ SWITCHBOARD_MAX_FILE_MB: '5' });
    // 6 MB; getFile does not say how big it is, so the download itself is cut off at 5 MB.
    const fileId = world.telegram.addFile(Buffer.alloc(6 * 1024 * 1024, 1), 'photos/huge.jpg', {
      withoutSize: true,
    });
    world.telegram.pushUpdate(photoUpdate(dm, fileId, ''));
    await world.telegram.waitFor(hasText(/that image is larger than 5 MB, the most I take/), 10_000);
    expect(world.anthropic.requests).toHaveLength(0);
  });

  it('delivers the exact reply once while the Bot API answers 429, 5xx and drops connections', async () => {
    world = await createAppWorld({ seed: 3 });
    await world.start();
    world.telegram.fault({ method: /^(send|edit|answer)/, kind: 'rate-limit', share: 0.3 });
    world.telegram.fault({ method: /^(send|edit|getUpdates)/, kind: 'server-error', share: 0.2 });
    world.telegram.fault({ method: /^(sendChatAction|getUpdates)/, kind: 'drop', share: 0.2 });
    const chunks = Array.from({ length: 10 }, (_, i) => `Step ${i + 1} done. `);
    world.anthropic.enqueue({ text: chunks, chunkDelayMs: 200 });
    world.telegram.pushUpdate(messageUpdate(dm, 'run the steps'));
    const full = chunks.join('').trim();
    await world.telegram.waitFor(hasText(new RegExp(`^${full.replace(/\./g, '\\.')}$`)), 30_000);
    // The start-up probe's "chat not found" (chat 0) is not an injected fault.
    const faults = world.telegram.state.calls.filter((c) => c.outcome !== 'ok' && c.params.chat_id !== 0);
    expect(faults.length).toBeGreaterThan(0);
    expect(texts()).toEqual([full]);
  });
});
