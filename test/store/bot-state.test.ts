/**
 * The bot core's own state: chat map, delivery window, turns in flight.
 */
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
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
    expect((await readdir(dir)).sort()).toEqual(['chats.jsonl', 'deliveries.jsonl', 'turns.jsonl']);

    const second = createBotStateStore(dir);
    expect(await second.getChat('discord:T1')).toEqual(binding('s1', 'alice'));
    expect(await second.markDelivered('telegram:1001')).toBe(false);
    expect(await second.activeTurns()).toEqual([turn('discord:T1')]);
  });

  it('writes the chat map only when a mapping changes', async () => {
    const dir = await dirs.make();
    const state = createBotStateStore(dir);
    await state.setChat('telegram:1', binding('s1'));
    const path = join(dir, 'chats.jsonl');
    const written = await readFile(path, 'utf8');
    await state.setChat('telegram:1', { ...binding('s1'), updatedAt: '2026-12-01T00:00:00Z' });
    expect(await readFile(path, 'utf8')).toBe(written);
    await state.setChat('telegram:1', binding('s2'));
    expect(lines(await readFile(path, 'utf8'))).toHaveLength(2);
  });

  it('appends one line per change, leaving what is written untouched however many chats there are', async () => {
    const dir = await dirs.make();
    const state = createBotStateStore(dir);
    for (let i = 0; i < 300; i++) await state.setChat(`telegram:${i}`, binding(`s${i}`));
    const path = join(dir, 'chats.jsonl');
    const before = await readFile(path, 'utf8');
    const inode = (await stat(path)).ino;
    await state.setChat('telegram:new', binding('s-new'));
    const after = await readFile(path, 'utf8');
    expect(after.startsWith(before)).toBe(true);
    expect(lines(after.slice(before.length))).toEqual([
      JSON.stringify({ chat: 'telegram:new', binding: binding('s-new') }),
    ]);
    expect((await stat(path)).ino).toBe(inode); // appended in place, not rewritten
  });

  it('keeps concurrent writes in order', async () => {
    const dir = await dirs.make();
    const state = createBotStateStore(dir);
    await Promise.all(Array.from({ length: 100 }, (_, i) => state.markDelivered(`e${i}`)));
    await state.flush();
    const saved = lines(await readFile(join(dir, 'deliveries.jsonl'), 'utf8')).map((l) => JSON.parse(l));
    expect(saved).toEqual(Array.from({ length: 100 }, (_, i) => `e${i}`));
  });

  it('compacts each journal once it holds far more lines than live entries, keeping the state', async () => {
    const dir = await dirs.make();
    const state = createBotStateStore(dir, { deliveryWindow: 3 });
    for (let i = 0; i < 600; i++) {
      await state.markDelivered(`d${i}`);
      await state.setChat('telegram:1', binding(`s${i}`));
      await state.beginTurn(turn(`telegram:${i}`));
      if (i < 599) await state.endTurn(`telegram:${i}`);
    }
    await state.flush();
    for (const name of ['chats.jsonl', 'deliveries.jsonl', 'turns.jsonl']) {
      expect(lines(await readFile(join(dir, name), 'utf8')).length).toBeLessThanOrEqual(300);
    }
    const restarted = createBotStateStore(dir, { deliveryWindow: 3 });
    expect(await restarted.listChats()).toEqual([['telegram:1', binding('s599')]]);
    expect(await restarted.activeTurns()).toEqual([turn('telegram:599')]);
    expect(await restarted.markDelivered('d599')).toBe(false);
    expect(await restarted.markDelivered('d597')).toBe(false);
    expect(await restarted.markDelivered('d596')).toBe(true);
  });

  it.each([
    ['chats.json', '{"version":1,"chats":{"telegram:1":'],
    ['deliveries.json', '{"version":1,"ids":"nope"}'],
    ['turns.json', ''],
    [
      'chats.jsonl',
      `{"chat":"telegram:1"\n${JSON.stringify({ chat: 'telegram:2', binding: binding('s2') })}\n`,
    ],
    ['deliveries.jsonl', '"u1"\n{"id":"u2"}\n"u3"\n'],
    ['turns.jsonl', `\u0000\u0000\n${JSON.stringify({ end: 'telegram:1' })}\n`],
  ])('moves a damaged %s aside intact, logs it and starts it empty', async (name, content) => {
    const dir = await dirs.make();
    await writeFile(join(dir, name), content);
    const { logger, lines: logged } = capturingLogger();
    const state = createBotStateStore(dir, { logger });
    expect(await state.listChats()).toEqual([]);
    expect(await state.activeTurns()).toEqual([]);
    expect(await state.markDelivered('u1')).toBe(true);
    const aside = (await readdir(dir)).filter((f) => f.startsWith(`${name}.corrupt-`));
    expect(aside).toHaveLength(1);
    expect(await readFile(join(dir, aside[0] as string), 'utf8')).toBe(content);
    expect(logged.some((l) => l.level === 50 && String(l.msg).includes('damaged'))).toBe(true);
    await state.setChat('telegram:1', binding('s1'));
    await state.beginTurn(turn('telegram:1'));
    await state.markDelivered('x');
    const restarted = createBotStateStore(dir);
    expect(await restarted.getChat('telegram:1')).toEqual(binding('s1'));
    expect(await restarted.activeTurns()).toEqual([turn('telegram:1')]);
    expect(await restarted.markDelivered('x')).toBe(false);
  });

  it('ignores and trims a torn last line left by a crash mid-append', async () => {
    const dir = await dirs.make();
    const whole = `${JSON.stringify({ chat: 'telegram:1', binding: binding('s1') })}\n`;
    await writeFile(join(dir, 'chats.jsonl'), `${whole}{"chat":"telegram:2","bin`);
    const { logger, lines: logged } = capturingLogger();
    const state = createBotStateStore(dir, { logger });
    expect(await state.listChats()).toEqual([['telegram:1', binding('s1')]]);
    expect(await readFile(join(dir, 'chats.jsonl'), 'utf8')).toBe(whole);
    await state.setChat('telegram:3', binding('s3'));
    const restarted = createBotStateStore(dir);
    expect((await restarted.listChats()).map(([chat]) => chat)).toEqual(['telegram:1', 'telegram:3']);
    expect(logged.filter((l) => l.level === 50)).toEqual([]);
    expect(logged.some((l) => l.level === 40 && String(l.msg).includes('torn'))).toBe(true);
    expect((await readdir(dir)).filter((f) => f.includes('corrupt'))).toEqual([]);
  });

  it('reports a state directory it cannot create, on every call', async () => {
    const root = await dirs.make();
    await writeFile(join(root, 'file'), 'x');
    const { logger, lines: logged } = capturingLogger();
    const state = createBotStateStore(join(root, 'file', 'state'), { logger });
    await expect(state.getChat('telegram:1')).rejects.toSatisfy((err) =>
      isErrorCode(err, 'STORE_WRITE_FAILED'),
    );
    await expect(state.markDelivered('u1')).rejects.toSatisfy((err) =>
      isErrorCode(err, 'STORE_WRITE_FAILED'),
    );
    expect(logged.filter((l) => l.level === 50)).toHaveLength(1);
  });

  it('reports a failed write with its cause and logs it, then rewrites the journal whole once it can', async () => {
    const dir = await dirs.make();
    const { logger, lines: logged } = capturingLogger();
    const state = createBotStateStore(dir, { logger });
    await state.setChat('telegram:0', binding('s0'));
    await rm(join(dir, 'chats.jsonl'));
    await mkdir(join(dir, 'chats.jsonl'));
    const err = await state.setChat('telegram:1', binding('s1')).catch((e: unknown) => e);
    expect(isErrorCode(err, 'STORE_WRITE_FAILED')).toBe(true);
    expect((err as Error).cause).toMatchObject({ code: 'EISDIR' });
    expect(logged.some((l) => l.level === 50)).toBe(true);

    await rm(join(dir, 'chats.jsonl'), { recursive: true });
    await state.setChat('telegram:2', binding('s2'));
    const restarted = createBotStateStore(dir);
    expect((await restarted.listChats()).map(([chat]) => chat)).toEqual([
      'telegram:0',
      'telegram:1',
      'telegram:2',
    ]);
  });
});

/** The non-empty lines of a journal's text. */
function lines(text: string): string[] {
  return text.split('\n').filter((l) => l !== '');
}
