/**
 * A failing store is visible. The sessions folder is replaced by a plain
 * file, so every save fails for real (ENOTDIR, as root too): the chat is told
 * once that its history is not being saved, every reply still arrives, and
 * the first save that works again is said as well. The bot's read-only
 * `saveHealth` follows the same state, for a readiness check.
 */
import { rename, rm, writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { type BotHarness, startBotHarness } from '../helpers/bot-harness.js';

let h: BotHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const NOT_SAVED = /^⚠️ This chat's history is not being saved \(.+\)\. Replies still arrive/;
const RECOVERED = '✅ Saving works again: this chat’s history is saved.';

describe('a failing store', () => {
  it('is said once in the chat, loses no reply, and its recovery is said too', async () => {
    h = await startBotHarness();
    await h.message('one');
    await h.settle();
    expect(h.bot.saveHealth.healthy).toBe(true);

    const aside = `${h.dirs.sessions}.aside`;
    await rename(h.dirs.sessions, aside);
    await writeFile(h.dirs.sessions, 'a file where the sessions folder was');
    await h.message('two');
    await h.settle();
    await h.message('three');
    await h.settle();
    const broken = h.texts();
    expect(broken.filter((t) => t.startsWith('Alice said'))).toEqual([
      'Alice said: one',
      'Alice said: two',
      'Alice said: three',
    ]);
    // Told once, right after the reply whose save failed.
    expect(broken.filter((t) => NOT_SAVED.test(t))).toHaveLength(1);
    expect(broken.indexOf('Alice said: two')).toBeLessThan(broken.findIndex((t) => NOT_SAVED.test(t)));
    expect(h.bot.saveHealth.healthy).toBe(false);
    expect(h.bot.saveHealth.failing().map((f) => f.chat)).toEqual([h.chat]);

    await rm(h.dirs.sessions);
    await rename(aside, h.dirs.sessions);
    await h.message('four');
    await h.settle();
    const texts = h.texts();
    expect(texts.at(-2)).toBe('Alice said: four');
    expect(texts.at(-1)).toBe(RECOVERED);
    expect(texts.filter((t) => t === RECOVERED)).toHaveLength(1);
    expect(h.bot.saveHealth.healthy).toBe(true);
    await h.message('five');
    await h.settle();
    expect(h.texts().filter((t) => t === RECOVERED || NOT_SAVED.test(t))).toHaveLength(2);
  });

  it('outside a turn (/rename, /mode, /compact) is said once too, and so is its recovery', async () => {
    h = await startBotHarness();
    await h.message('one');
    await h.settle();
    const aside = `${h.dirs.sessions}.aside`;
    await rename(h.dirs.sessions, aside);
    await writeFile(h.dirs.sessions, 'a file where the sessions folder was');

    await h.command('rename', 'kept-name');
    await h.settle();
    expect(h.texts()).toContain('Renamed this session to "kept-name".');
    expect(h.texts().filter((t) => NOT_SAVED.test(t))).toHaveLength(1);
    // What a readiness check reads.
    expect(h.bot.saveHealth.healthy).toBe(false);
    expect(h.bot.saveHealth.failing().map((f) => f.chat)).toEqual([h.chat]);

    await h.command('mode', 'acceptEdits');
    await h.command('compact');
    await h.settle();
    expect(h.texts()).toContain('Permission mode is now acceptEdits.');
    expect(h.texts().some((t) => t.startsWith('Compacted: '))).toBe(true);
    expect(h.texts().filter((t) => NOT_SAVED.test(t))).toHaveLength(1);

    await rm(h.dirs.sessions);
    await rename(aside, h.dirs.sessions);
    await h.command('rename', 'saved-again');
    await h.settle();
    expect(h.texts().filter((t) => t === RECOVERED)).toHaveLength(1);
    expect(h.bot.saveHealth.healthy).toBe(true);
    await h.command('mode', 'default');
    await h.settle();
    expect(h.texts().filter((t) => t === RECOVERED || NOT_SAVED.test(t))).toHaveLength(2);
  });
});
