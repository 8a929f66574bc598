/**
 * SendFile on its own: what it reads (inside the workspace only), what type
 * it gives the file (from its bytes), and what the model hears back.
 */
import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FileSender, OutboundFile } from '../../src/vocabulary.js';
import { pngBase64 } from '../fakes/images.js';
import { makeContext, makeSandbox, type Sandbox, tool } from './helpers.js';

let box: Sandbox;
beforeEach(async () => {
  box = await makeSandbox();
});
afterEach(async () => {
  await box.cleanup();
});

/** A chat taking files up to `maxBytes`, recording what it was given. */
function chat(maxBytes: number | undefined): FileSender & { sent: OutboundFile[] } {
  const sent: OutboundFile[] = [];
  return {
    maxBytes,
    sent,
    async send(file) {
      sent.push(file);
      return { ok: true, shownAs: file.mediaType.startsWith('image/') ? 'image' : 'document' };
    },
  };
}

const sendFile = tool('SendFile');

describe('SendFile', () => {
  it('sends a workspace image with its caption, its type read from its bytes', async () => {
    const png = Buffer.from(pngBase64(40, 30), 'base64');
    await box.write({ 'charts/q3.png': png, 'notes/plot.txt': png, 'fake.png': 'not an image at all' });
    const to = chat(10 * 1024 * 1024);
    const context = { ...makeContext(box.workspace), sendFile: to };
    const result = await sendFile.run({ file_path: 'charts/q3.png', caption: ' Q3 revenue ' }, context);
    expect(result.isError).toBeUndefined();
    expect(result.content).toMatch(/^Sent charts\/q3\.png \(.*image\/png\): it was sent as an image\.$/);
    await sendFile.run({ file_path: 'notes/plot.txt' }, context);
    await sendFile.run({ file_path: 'fake.png' }, context);
    expect(to.sent.map((f) => [f.name, f.mediaType, f.caption])).toEqual([
      ['q3.png', 'image/png', 'Q3 revenue'],
      ['plot.txt', 'image/png', undefined],
      // Named .png, holding text: typed as what it holds.
      ['fake.png', 'text/plain; charset=utf-8', undefined],
    ]);
    expect(to.sent[0]?.path).toBe(join(box.workspace, 'charts/q3.png'));
    expect(Buffer.from(to.sent[0]!.bytes).equals(png)).toBe(true);
    expect(sendFile.summarize({ file_path: 'charts/q3.png' })).toBe('SendFile: charts/q3.png');
  });

  it('refuses a file over the chat upload limit, naming the limit, without sending anything', async () => {
    await box.write({ 'big.bin': Buffer.alloc(3000, 1) });
    const to = chat(2048);
    const result = await sendFile.run(
      { file_path: 'big.bin' },
      { ...makeContext(box.workspace), sendFile: to },
    );
    expect(result.isError).toBe(true);
    expect(result.content).toContain("over this chat's upload limit of 2 KB (2048 bytes)");
    expect(to.sent).toEqual([]);
  });

  it('refuses paths out of the workspace: ../ and a symlink out', async () => {
    await symlink(join(box.outside, 'secret.txt'), join(box.workspace, 'link.txt'));
    await symlink(box.outside, join(box.workspace, 'out'));
    const to = chat(1024 * 1024);
    const context = { ...makeContext(box.workspace), sendFile: to };
    for (const file_path of [
      '../outside/secret.txt',
      'link.txt',
      'out/secret.txt',
      join(box.outside, 'secret.txt'),
    ]) {
      const result = await sendFile.run({ file_path }, context);
      expect(result.isError, file_path).toBe(true);
    }
    expect(to.sent).toEqual([]);
  });

  it('says so when there is no chat, or the chat takes no files, and passes on a refusal', async () => {
    await box.write({ 'a.txt': 'hello' });
    const alone = await sendFile.run({ file_path: 'a.txt' }, makeContext(box.workspace));
    expect(alone).toEqual({ isError: true, content: expect.stringContaining('no chat to send files to') });
    const none = await sendFile.run(
      { file_path: 'a.txt' },
      { ...makeContext(box.workspace), sendFile: chat(undefined) },
    );
    expect(none).toEqual({ isError: true, content: expect.stringContaining('cannot take files') });
    const refusing: FileSender = {
      maxBytes: 100,
      send: async () => ({ error: 'Telegram refused the upload: Request Entity Too Large.' }),
    };
    const refused = await sendFile.run(
      { file_path: 'a.txt' },
      { ...makeContext(box.workspace), sendFile: refusing },
    );
    expect(refused).toEqual({
      isError: true,
      content: 'Telegram refused the upload: Request Entity Too Large.',
    });
  });
});
