/**
 * The journal file under the bot state store: replay, torn tails, batched
 * ordered appends, and the delivery window's order.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal, readJournal } from '../../src/store/bot-state-journal.js';
import { DeliveryWindow } from '../../src/store/bot-state-model.js';
import { tempDirs } from './helpers.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const numbers = (into: number[]) => (value: unknown) => {
  if (typeof value !== 'number') return false;
  into.push(value);
  return true;
};

describe('readJournal', () => {
  it('reports a missing file', async () => {
    expect(await readJournal(join(await dirs.make(), 'x.jsonl'), () => true)).toEqual({ status: 'missing' });
  });

  it('keeps a whole last line that lost only its newline, and adds the newline', async () => {
    const path = join(await dirs.make(), 'x.jsonl');
    await writeFile(path, '1\n2\n3');
    const seen: number[] = [];
    expect(await readJournal(path, numbers(seen))).toEqual({ status: 'ok', lines: 3, trimmed: 0 });
    expect(seen).toEqual([1, 2, 3]);
    expect(await readFile(path, 'utf8')).toBe('1\n2\n3\n');
  });

  it('trims a torn last line and leaves a clean file untouched', async () => {
    const dir = await dirs.make();
    const torn = join(dir, 'torn.jsonl');
    await writeFile(torn, '1\n2\n"abc');
    expect(await readJournal(torn, numbers([]))).toEqual({ status: 'ok', lines: 2, trimmed: 4 });
    expect(await readFile(torn, 'utf8')).toBe('1\n2\n');
    const clean = join(dir, 'clean.jsonl');
    await writeFile(clean, '');
    expect(await readJournal(clean, numbers([]))).toEqual({ status: 'ok', lines: 0, trimmed: 0 });
  });

  it.each([
    ['before the last', '1\n"two"\n3\n', 2],
    ['ending in a newline (no append leaves that torn)', '1\n2\n"three"\n', 3],
  ])('calls a bad line %s damage and changes nothing', async (_case, content, line) => {
    const path = join(await dirs.make(), 'x.jsonl');
    await writeFile(path, content);
    expect(await readJournal(path, numbers([]))).toEqual({
      status: 'damaged',
      reason: `line ${line} is not a bot state entry`,
    });
    expect(await readFile(path, 'utf8')).toBe(content);
  });
});

describe('Journal', () => {
  it('writes concurrent appends in call order', async () => {
    const path = join(await dirs.make(), 'x.jsonl');
    const journal = new Journal(path, { snapshot: () => [], liveCount: () => 1000, minCompactLines: 10_000 });
    await Promise.all(Array.from({ length: 500 }, (_, i) => journal.append(String(i))));
    expect(await readFile(path, 'utf8')).toBe(Array.from({ length: 500 }, (_, i) => `${i}\n`).join(''));
    expect(journal.lines).toBe(500);
  });

  it('rewrites itself from the snapshot once lines exceed twice the live entries', async () => {
    const path = join(await dirs.make(), 'x.jsonl');
    let last = 0;
    const journal = new Journal(path, {
      snapshot: () => [String(last)],
      liveCount: () => 1,
      minCompactLines: 20,
    });
    for (let i = 1; i <= 25; i++) {
      last = i;
      await journal.append(String(i));
    }
    await journal.idle();
    const lines = (await readFile(path, 'utf8')).split('\n').filter(Boolean);
    expect(lines.length).toBeLessThan(10);
    expect(lines.at(-1)).toBe('25');
  });
});

describe('DeliveryWindow', () => {
  it('keeps the latest ids in order and forgets the oldest', () => {
    const window = new DeliveryWindow(3);
    for (const id of ['a', 'b', 'c', 'd', 'e']) expect(window.add(id)).toBe(true);
    expect(window.add('d')).toBe(false);
    expect(window.ids()).toEqual(['c', 'd', 'e']);
    expect(window.add('a')).toBe(true);
    expect(window.ids()).toEqual(['d', 'e', 'a']);
    expect(window.size).toBe(3);
  });
});
