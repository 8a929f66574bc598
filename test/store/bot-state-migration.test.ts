/**
 * Upgrading from the whole-file bot state (`chats.json`, `deliveries.json`,
 * `turns.json`) to the journals: users' chat maps must survive.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBotStateStore } from '../../src/store/index.js';
import { tempDirs } from './helpers.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const binding = (sessionId: string, owner = 'telegram:1') => ({
  sessionId,
  owner,
  updatedAt: '2026-11-29T12:00:00Z',
});
const turn = (chat: string) => ({ chat, sessionId: 's1', startedAt: '2026-11-29T12:00:00Z' });

/** Writes the state as the whole-file store did. */
async function writeLegacy(dir: string, chats: number, deliveries: string[]): Promise<void> {
  const map = Object.fromEntries(
    Array.from({ length: chats }, (_, i) => [`telegram:${i}`, binding(`s${i}`)]),
  );
  await writeFile(join(dir, 'chats.json'), JSON.stringify({ version: 1, chats: map }));
  await writeFile(join(dir, 'deliveries.json'), JSON.stringify({ version: 1, ids: deliveries }));
  await writeFile(
    join(dir, 'turns.json'),
    JSON.stringify({ version: 1, turns: { 'telegram:7': turn('telegram:7') } }),
  );
}

describe('bot state written by the whole-file store', () => {
  it('is migrated into journals once, and the old files are removed', async () => {
    const dir = await dirs.make();
    await writeLegacy(dir, 50, ['u1', 'u2', 'u3']);
    const state = createBotStateStore(dir, { deliveryWindow: 2 });
    expect(await state.listChats()).toHaveLength(50);
    expect(await state.getChat('telegram:42')).toEqual(binding('s42'));
    expect(await state.activeTurns()).toEqual([turn('telegram:7')]);
    expect(await state.markDelivered('u3')).toBe(false);
    expect(await state.markDelivered('u2')).toBe(false);
    expect(await state.markDelivered('u1')).toBe(true); // outside the window of 2
    await state.setChat('telegram:new', binding('s-new'));
    await state.flush();
    expect((await readdir(dir)).sort()).toEqual(['chats.jsonl', 'deliveries.jsonl', 'turns.jsonl']);

    const restarted = createBotStateStore(dir, { deliveryWindow: 2 });
    expect(await restarted.listChats()).toHaveLength(51);
    expect(await restarted.getChat('telegram:0')).toEqual(binding('s0'));
    expect(await restarted.getChat('telegram:new')).toEqual(binding('s-new'));
    expect(await restarted.activeTurns()).toEqual([turn('telegram:7')]);
  });

  it('is ignored when a journal already exists (a migration stopped before removing it)', async () => {
    const dir = await dirs.make();
    await writeLegacy(dir, 3, ['u1']);
    const journal = `${JSON.stringify({ chat: 'telegram:0', binding: binding('journal') })}\n`;
    await writeFile(join(dir, 'chats.jsonl'), journal);
    const state = createBotStateStore(dir);
    expect(await state.listChats()).toEqual([['telegram:0', binding('journal')]]);
    expect(await readFile(join(dir, 'chats.jsonl'), 'utf8')).toBe(journal);
    expect((await readdir(dir)).sort()).toEqual(['chats.jsonl', 'deliveries.jsonl', 'turns.jsonl']);
  });
});
