/**
 * Files into the chat, end to end on Telegram: switchboard started as
 * `npm start` starts it, against the fake Bot API (getFile and the file
 * endpoint, with the Bot API's 20 MB limit) and the fake Messages API. What
 * is asserted is what a person and the model see: the request the model got,
 * the file in the workspace, the lines in the chat.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { workspaceFolderName } from '../../../src/session/index.js';
import { pdfBytes } from '../../fakes/pdfs.js';
import { documentUpdate } from '../../fakes/telegram/index.js';
import { ANN, type AppWorld, BOB, createAppWorld } from './app-harness.js';

let world: AppWorld;
afterEach(async () => {
  await world?.close();
});

const texts = (chat = ANN.id) => world.telegram.botMessages(chat).map((m) => m.text);
const hasText =
  (pattern: RegExp, chat = ANN.id) =>
  () =>
    texts(chat).some((t) => pattern.test(t));
const dm = { chatId: ANN.id, user: ANN };
const MB = 1024 * 1024;

// biome-ignore lint/suspicious/noExplicitAny: request bodies from the fake.
const lastUserContent = (request: any): any[] => request.messages.at(-1).content;

describe('Telegram: files into the chat', () => {
  it('a PDF with a question: the model reads it as a document, and it is saved in the workspace', async () => {
    world = await createAppWorld();
    await world.start();
    const pdf = pdfBytes(2);
    const fileId = world.telegram.addFile(pdf, 'documents/file_3.pdf');
    world.telegram.pushUpdate(
      documentUpdate(dm, fileId, {
        name: 'Q3 report.pdf',
        mimeType: 'application/pdf',
        size: pdf.length,
        caption: 'what are the totals?',
      }),
    );
    await world.telegram.waitFor(hasText(/You said: .*what are the totals/), 10_000);
    const content = lastUserContent(world.anthropic.requests[0]);
    expect(content.find((b) => b.type === 'document')).toMatchObject({
      source: { type: 'base64', media_type: 'application/pdf', data: pdf.toString('base64') },
      title: 'Q3 report.pdf',
    });
    const saved = await readdir(join(world.root, 'workspace', 'uploads'));
    expect(saved).toEqual([expect.stringMatching(/^\d{4}-\d{2}-\d{2}-Q3_report\.pdf$/)]);
    expect(await readFile(join(world.root, 'workspace', 'uploads', saved[0] as string))).toEqual(pdf);
    expect(JSON.stringify(content)).toContain(`saved as uploads/${saved[0]}`);
  });

  it('a document over the Bot API limit with text: the text runs, and the answer names the file and the limit', async () => {
    world = await createAppWorld();
    await world.start();
    // No file_size in the update: getFile itself refuses it ("file is too big").
    const fileId = world.telegram.addFile(Buffer.alloc(21 * MB, 7), 'documents/file_9.bin');
    world.telegram.pushUpdate(documentUpdate(dm, fileId, { name: 'dump.bin', caption: 'look at this dump' }));
    await world.telegram.waitFor(
      hasText(/"dump\.bin" is larger than 20 MB, the most I take, so I left it out and answered your text/),
      10_000,
    );
    await world.telegram.waitFor(hasText(/You said: .*look at this dump/), 10_000);
    expect(world.anthropic.requests).toHaveLength(1);
    expect(JSON.stringify(world.anthropic.requests[0].messages)).not.toContain('dump.bin');
  });

  it('a file over SWITCHBOARD_MAX_FILE_MB sent alone runs nothing; a stalled download is given up', async () => {
    world = await createAppWorld();
    const app = await world.start({ SWITCHBOARD_MAX_FILE_MB: '1' }, { downloadTimeoutMs: 500 });
    const big = world.telegram.addFile(Buffer.alloc(2 * MB), 'documents/file_1.csv');
    world.telegram.pushUpdate(documentUpdate(dm, big, { name: 'big.csv', size: 2 * MB }));
    await world.telegram.waitFor(
      hasText(/^⚠️ "big\.csv" is larger than 1 MB, the most I take, so I left it out\./),
    );
    const slow = world.telegram.addFile(Buffer.alloc(4096, 65), 'documents/file_2.txt', { stall: true });
    world.telegram.pushUpdate(documentUpdate(dm, slow, { name: 'slow.txt', size: 4096 }));
    await world.telegram.waitFor(
      hasText(/I couldn't download "slow\.txt", so I left it out\. Please send it again/),
    );
    expect(world.anthropic.requests).toHaveLength(0);
    // The failed download was logged, without the file URL (it holds the bot token) or the file's name.
    const logs = app.lines.join('\n');
    expect(logs).toContain('could not download a Telegram file');
    expect(logs).not.toContain(world.telegram.token);
    expect(logs).not.toContain('slow.txt');
  });

  it('with a workspace per chat, each chat finds only its own files', async () => {
    world = await createAppWorld();
    await world.start({ SWITCHBOARD_WORKSPACE_PER_CHAT: 'true' });
    const annFile = world.telegram.addFile(Buffer.from('ann,1\n'), 'documents/a.csv');
    const bobFile = world.telegram.addFile(Buffer.from('bob,2\n'), 'documents/b.csv');
    world.telegram.pushUpdate(documentUpdate(dm, annFile, { name: 'data.csv', caption: 'mine' }));
    await world.telegram.waitFor(hasText(/You said: .*mine/), 10_000);
    world.telegram.pushUpdate(
      documentUpdate({ chatId: BOB.id, user: BOB }, bobFile, { name: 'data.csv', caption: 'mine too' }),
    );
    await world.telegram.waitFor(hasText(/You said: .*mine too/, BOB.id), 10_000);
    const folder = (chat: number) =>
      join(world.root, 'workspace', workspaceFolderName(`telegram:${chat}`), 'uploads');
    const [annSaved] = await readdir(folder(ANN.id));
    const [bobSaved] = await readdir(folder(BOB.id));
    // Same name in each chat's own folder: neither got a suffix, neither sees the other's.
    expect(annSaved).toBe(bobSaved);
    expect(await readFile(join(folder(ANN.id), annSaved as string), 'utf8')).toBe('ann,1\n');
    expect(await readFile(join(folder(BOB.id), bobSaved as string), 'utf8')).toBe('bob,2\n');
    expect(JSON.stringify(world.anthropic.requests[1].messages)).not.toContain('ann,1');
  });
});
