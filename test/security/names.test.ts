/**
 * Session names and ids typed in a chat (`/resume`, `/rename`) never become
 * paths or hidden text: traversal, very long values, control and bidi
 * characters are refused with a clear answer, nothing on disk changes, and
 * the chat keeps its session and name.
 */
import { readdir } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { type BotHarness, startBotHarness } from '../helpers/bot-harness.js';

let h: BotHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Control characters (newline aside) and the bidi controls that can disguise text. */
const UNSAFE = /[\p{Cc}\u202A-\u202E\u2066-\u2069]/u;
const unsafeIn = (text: string) => UNSAFE.test(text.replace(/\n/g, ''));

const HOSTILE = [
  '../../etc',
  '../../../etc/passwd',
  '..',
  '/etc/passwd',
  '..\\..\\windows',
  'a'.repeat(65),
  'é'.repeat(65),
  'name\u0000with-nul',
  'bell\u0007',
  '\u001b[31mred',
  'line\nbreak',
  'rtl\u202Eevil',
];

describe('session names and ids from chat input', () => {
  it('/resume refuses traversal, long and control-character ids with a clear answer and changes nothing', async () => {
    h = await startBotHarness();
    await h.message('hello');
    await h.settle();
    const bound = (await h.stateStore.getChat(h.chat))?.sessionId;
    const files = (await readdir(h.dirs.sessions)).sort();
    for (const value of HOSTILE) {
      const answer = await h.ask('resume', value);
      expect(answer, JSON.stringify(value)).toMatch(
        /not valid|no session|can't|cannot|not found|contains|long/i,
      );
      expect(unsafeIn(answer), JSON.stringify(answer)).toBe(false);
    }
    expect((await h.stateStore.getChat(h.chat))?.sessionId).toBe(bound);
    expect((await readdir(h.dirs.sessions)).sort()).toEqual(files);
  });

  it('/rename refuses the same values, keeps the name, and still takes a good one', async () => {
    h = await startBotHarness();
    await h.message('hello');
    await h.settle();
    expect(await h.ask('rename', 'first-name')).toMatch(/first-name/);
    for (const value of [...HOSTILE, '   ']) {
      const answer = await h.ask('rename', value);
      expect(answer, JSON.stringify(value)).toMatch(/not valid|empty|contains|long|usage|name/i);
      expect(answer).not.toMatch(/renamed/i);
      expect(unsafeIn(answer), JSON.stringify(answer)).toBe(false);
    }
    expect(await h.ask('status')).toContain('first-name');
    expect(await h.ask('rename', 'refactor-parser')).toMatch(/refactor-parser/);
    expect(await h.ask('status')).toContain('refactor-parser');
    // The name is data in the record, never a file name.
    expect((await readdir(h.dirs.sessions)).some((f) => f.includes('refactor-parser'))).toBe(false);
  });

  // Known defect (reported): the refusal quotes the value with JSON.stringify, which leaves
  // bidi controls such as U+202E as they are, so the bot's own answer can be displayed reversed.
  it('a refusal never echoes a bidi control character back into the chat', async () => {
    h = await startBotHarness();
    const answers = [await h.ask('resume', 'rtl\u202Eevil'), await h.ask('rename', 'rtl\u202Eevil')];
    for (const answer of answers) expect(unsafeIn(answer), JSON.stringify(answer)).toBe(false);
  });
});
