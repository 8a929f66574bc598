/**
 * The bot core's own state: chat map, delivery window, turns in flight.
 */
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isErrorCode } from '../../src/errors.js';
import { type BotStateStore, createBotStateStore, createMemoryBotStateStore } from '../../src/store/index.js';
import { capturingLogger, tempDirs } from './helpers.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const binding = (sessionId: string, owner = 'telegram:1') => ({
  sessionId,
  owner,
  updatedAt: '2026-11-29T12:00:00Z',
});
const turn = (chat: string) => ({
  chat,
  sessionId: 's1',
  startedAt: '2026-11-29T12:00:00Z',
  replyMessageId: '42',
});

const kinds: Array<[string, (window?: number) => Promise<BotStateStore>]> = [
  [
    'file',
    async (deliveryWindow) =>
      createBotStateStore(await dirs.make(), deliveryWindow ? { deliveryWindow } : {}),
  ],
  ['memory', async (deliveryWindow) => createMemoryBotStateStore(deliveryWindow ? { deliveryWindow } : {})],
];

describe.each(kinds)('%s bot state store', (_kind, make) => {
  it('maps chat keys to sessions', async () => {
    const state = await make();
    expect(await state.getChat('telegram:1')).toBeUndefined();
    await state.setChat('telegram:1', binding('s1'));
    await state.setChat('slack:C1:17.1', binding('s2', 'slack:U1'));
    await state.setChat('telegram:1', binding('s3'));
    expect(await state.getChat('telegram:1')).toEqual(binding('s3'));
    expect(await state.listChats()).toEqual([
      ['telegram:1', binding('s3')],
      ['slack:C1:17.1', binding('s2', 'slack:U1')],
    ]);
  });

  it('tells a redelivery from a new delivery, within a window of recent ids', async () => {
    const state = await make(3);
    expect(await state.markDelivered('u1')).toBe(true);
    expect(await state.markDelivered('u1')).toBe(false);
    for (const id of ['u2', 'u3', 'u4']) expect(await state.markDelivered(id)).toBe(true);
    expect(await state.markDelivered('u4')).toBe(false);
    expect(await state.markDelivered('u1')).toBe(true); // forgotten: outside the window
  });

  it('remembers 2,000 delivery ids by default', async () => {
    const state = await make();
    const results = await Promise.all(Array.from({ length: 2001 }, (_, i) => state.markDelivered(`d${i}`)));
    expect(results.every(Boolean)).toBe(true);
    expect(await state.markDelivered('d1')).toBe(false);
    expect(await state.markDelivered('d0')).toBe(true);
  });

  it('tracks turns in flight', async () => {
    const state = await make();
    await state.beginTurn(turn('telegram:1'));
    await state.beginTurn(turn('telegram:2'));
    await state.endTurn('telegram:1');
    await state.endTurn('telegram:9');
    expect(await state.activeTurns()).toEqual([turn('telegram:2')]);
    await state.flush();
  });
});

describe('createBotStateStore on disk', () => {
  it('reads in a fresh instance (a restart) what the first wrote', async () => {
    const dir = await dirs.make();
    const first = createBotStateStore(dir);
    await first.setChat('discord:T1', binding('s1', 'alice'));
    await first.markDelivered('telegram:1001');
    await first.beginTurn(turn('discord:T1'));
    await first.flush();
    expect((await readdir(dir)).sort()).toEqual(['chats.json', 'deliveries.json', 'turns.json']);

    const second = createBotStateStore(dir);
    expect(await second.getChat('discord:T1')).toEqual(binding('s1', 'alice'));
    expect(await second.markDelivered('telegram:1001')).toBe(false);
    expect(await second.activeTurns()).toEqual([turn('discord:T1')]);
  });

  it('rewrites the chat map only when a mapping changes', async () => {
    const dir = await dirs.make();
    const state = createBotStateStore(dir);
    await state.setChat('telegram:1', binding('s1'));
    const path = join(dir, 'chats.json');
    const written = await stat(path);
    await state.setChat('telegram:1', { ...binding('s1'), updatedAt: '2026-12-01T00:00:00Z' });
    expect((await stat(path)).ino).toBe(written.ino); // atomic writes replace the file: same inode, no write
    await state.setChat('telegram:1', binding('s2'));
    expect((await stat(path)).ino).not.toBe(written.ino);
  });

  it('coalesces concurrent writes and keeps the newest state', async () => {
    const dir = await dirs.make();
    const state = createBotStateStore(dir);
    await Promise.all(Array.from({ length: 100 }, (_, i) => state.markDelivered(`e${i}`)));
    await state.flush();
    const saved = JSON.parse(await readFile(join(dir, 'deliveries.json'), 'utf8'));
    expect(saved.ids).toHaveLength(100);
    expect(saved.ids.at(-1)).toBe('e99');
  });

  it.each([
    ['chats.json', '{"version":1,"chats":{"telegram:1":'],
    ['deliveries.json', '{"version":1,"ids":"nope"}'],
    ['turns.json', ''],
  ])('moves a damaged %s aside intact, logs it and starts it empty', async (name, content) => {
    const dir = await dirs.make();
    await writeFile(join(dir, name), content);
    const { logger, lines } = capturingLogger();
    const state = createBotStateStore(dir, { logger });
    expect(await state.listChats()).toEqual([]);
    expect(await state.activeTurns()).toEqual([]);
    const aside = (await readdir(dir)).filter((f) => f.startsWith(`${name}.corrupt-`));
    expect(aside).toHaveLength(1);
    expect(await readFile(join(dir, aside[0] as string), 'utf8')).toBe(content);
    expect(lines.some((l) => l.level === 50 && String(l.msg).includes('damaged'))).toBe(true);
    await state.setChat('telegram:1', binding('s1'));
    await state.beginTurn(turn('telegram:1'));
    await state.markDelivered('x');
    const restarted = createBotStateStore(dir);
    expect(await restarted.getChat('telegram:1')).toEqual(binding('s1'));
  });

  it('reports a state directory it cannot create, on every call', async () => {
    const root = await dirs.make();
    await writeFile(join(root, 'file'), 'x');
    const { logger, lines } = capturingLogger();
    const state = createBotStateStore(join(root, 'file', 'state'), { logger });
    await expect(state.getChat('telegram:1')).rejects.toSatisfy((err) =>
      isErrorCode(err, 'STORE_WRITE_FAILED'),
    );
    await expect(state.markDelivered('u1')).rejects.toSatisfy((err) =>
      isErrorCode(err, 'STORE_WRITE_FAILED'),
    );
    expect(lines.filter((l) => l.level === 50)).toHaveLength(1);
  });

  it('reports a failed write with its cause and logs it', async () => {
    const dir = await dirs.make();
    const { logger, lines } = capturingLogger();
    const state = createBotStateStore(dir, { logger });
    await mkdir(join(dir, '.chats.json.tmp'));
    const err = await state.setChat('telegram:1', binding('s1')).catch((e: unknown) => e);
    expect(isErrorCode(err, 'STORE_WRITE_FAILED')).toBe(true);
    expect((err as Error).cause).toMatchObject({ code: 'EISDIR' });
    expect(lines.some((l) => l.level === 50)).toBe(true);
  });
});
