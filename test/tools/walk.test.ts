import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type WalkStats, walkFiles } from '../../src/tools/walk.js';
import { makeSandbox, type Sandbox } from './helpers.js';

async function collect(box: Sandbox, maxEntries: number, signal = new AbortController().signal) {
  const stats: WalkStats = { entries: 0, truncated: false };
  const files: string[] = [];
  for await (const file of walkFiles(
    { root: box.workspace, start: box.workspace, signal, maxEntries },
    stats,
  )) {
    files.push(file.relFromStart);
  }
  return { files, stats };
}

describe('walkFiles', () => {
  let box: Sandbox;
  beforeAll(async () => {
    box = await makeSandbox();
    await box.write({
      'b.txt': '',
      'a.txt': '',
      'z/inner.txt': '',
      'c/deeper/x.txt': '',
      'node_modules/m.js': '',
      '.git/HEAD': '',
    });
  });
  afterAll(() => box.cleanup());

  it('yields files depth first in name order, skipping node_modules and .git', async () => {
    const { files, stats } = await collect(box, 1000);
    expect(files).toEqual(['a.txt', 'b.txt', 'c/deeper/x.txt', 'z/inner.txt']);
    expect(stats.truncated).toBe(false);
  });

  it('stops at maxEntries and says so', async () => {
    const { files, stats } = await collect(box, 3);
    expect(files).toEqual(['a.txt', 'b.txt']);
    expect(stats.truncated).toBe(true);
  });

  it('stops when the signal aborts', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(collect(box, 1000, controller.signal)).rejects.toThrow('The search was stopped.');
  });
});
