/**
 * A sweep of the bot's fixed phrases (the `say` catalogue) for the slips a
 * person notices: a count whose noun disagrees ("1 messages"), an unnamed
 * session shown as a bare id in brackets, a placeholder that leaked
 * ("undefined", "[object Object]"), doubled spaces or words. Every phrase
 * that takes arguments is called with the awkward ones (0, 1, 2, no name);
 * a new phrase without samples here fails the sweep, so none is skipped.
 */
import { describe, expect, it } from 'vitest';
import type { Attachment } from '../../src/bot/adapter-contract.js';
import { plural, say } from '../../src/bot/text.js';

const COUNTS = [0, 1, 2, 1000];
const NAMES = [undefined, 'release notes'];
const ID = '0mx4vo64x-cjkmf2';

/** Sample arguments for every phrase that is a function. */
const SAMPLES: Record<string, unknown[][]> = {
  noAllowlist: [['telegram:42']],
  notAllowed: [['slack:U1']],
  tooLong: COUNTS.map((n) => [n + 32_001]),
  queueFull: COUNTS.map((n) => [n]),
  scheduledRun: [['check the build'], ['*bold* <b>x</b> `code`']],
  unattendedDenied: [['Bash'], ['mcp__github__create_issue']],
  unreadable: [
    [[{ kind: 'audio' }] as Attachment[]],
    [[{ kind: 'video' }, { kind: 'image' }, { kind: 'other' }] as Attachment[]],
  ],
  fileTooLarge: [
    ['"report.pdf"', 20 * 1024 * 1024, true],
    ['that image', 512 * 1024, false],
  ],
  fileFailed: [
    ['"report.pdf"', true],
    ['that file', false],
  ],
  turnError: [['Overloaded'], ['']],
  stopped: COUNTS.flatMap((n) => [
    [n, true],
    [n, false],
  ]),
  corruptSession: [
    [ID, 'corrupt', 'bad JSON'],
    [ID, 'unsupported', ''],
  ],
  sessionLabel: NAMES.map((n) => [n, ID]),
  sessionLine: NAMES.map((n) => [n, ID]),
  listedName: NAMES.map((n) => [n]),
  alreadyOn: NAMES.map((n) => [n, ID]),
  resumed: NAMES.flatMap((n) => COUNTS.map((c) => [n, ID, c, '5 minutes ago'])),
  replyFooter: [
    [{ usedTokens: 0, maxTokens: 200_000, usedPercentage: 0 }],
    [{ usedTokens: 24_600, maxTokens: 200_000, usedPercentage: 12.3 }],
    [{ usedTokens: 24_600, maxTokens: 200_000, usedPercentage: 12.3 }, '$0.0123'],
  ],
  percent: [[0], [0.0004], [0.2], [0.25], [9.96], [12.34], [83], [100]],
  compacted: [
    [
      { usedTokens: 412, usedPercentage: 0.206 },
      { usedTokens: 430, usedPercentage: 0.215 },
    ],
    [
      { usedTokens: 24_600, usedPercentage: 12.3 },
      { usedTokens: 1, usedPercentage: 0.0005 },
    ],
  ],
  approvalOnlyFor: [['Alice']],
  budgetWarning: [
    ['user-day', '$4.01', '$5.00'],
    ['chat-day', '$16.00', '$20.00'],
    ['month', '$240.00', '$300.00'],
  ],
  budgetReached: [
    ['user-day', '$5.00', '$5.02', '2026-12-03 00:00', false, '$5.00'],
    ['chat-day', '$20.00', '$21.00', '2026-12-03 00:00', true, '$20.00'],
    ['month', '$600.00', '$600.10', '2027-01-01 00:00', true, undefined],
  ],
  budgetExtendedAnswer: [['$5.00']],
  rulePrefixStored: [['rk3x9q', '`npm test`']],
  ruleStored: [['rk3x9q']],
  alwaysAllowed: [['Admin', 'rk3x9q']],
  ruleAllowedNote: [['rk3x9q']],
  budgetExtended: [['$5.00', 'Admin']],
  allowed: [['Alice']],
  allowedSession: [['Alice']],
  denied: [['Alice']],
  waitForReply: [['compact']],
  unknownCommand: [['frobnicate']],
  heard: [['Please list the files.'], ['']],
  voiceTooLong: [
    [601, 600, true],
    [61, 60, false],
    [45, 30, false],
  ],
  voiceEmpty: [[true], [false]],
  voiceFailed: [
    ['the transcription service did not answer within 120 s', true],
    ['the transcription service failed (HTTP 503): Overloaded.', false],
  ],
};

/** Every phrase the catalogue can produce with the samples. */
function allPhrases(): Array<{ key: string; text: string }> {
  const out: Array<{ key: string; text: string }> = [];
  const visit = (key: string, value: unknown) => {
    if (typeof value === 'string') out.push({ key, text: value });
    else if (typeof value === 'function') {
      const samples = SAMPLES[key];
      if (!samples) throw new Error(`say.${key} has no samples in this sweep; add some`);
      for (const args of samples)
        out.push({ key, text: String((value as (...a: unknown[]) => unknown)(...args)) });
    } else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) visit(`${key}.${k}`, v);
    }
  };
  for (const [key, value] of Object.entries(say)) visit(key, value);
  return out;
}

// Words ending in "s" that are not plurals and may follow a count of 1.
const SINGULAR_S = new Set(['is', 'was', 'has', 'does', 'this', 'its', 'as', 'plus', 'minus']);

describe("the bot's fixed phrases", () => {
  const phrases = allPhrases();

  it('cover every phrase', () => {
    expect(phrases.length).toBeGreaterThan(40);
  });

  it('agree in number: "1 message", never "1 messages"', () => {
    for (const { key, text } of phrases) {
      for (const m of text.matchAll(/(?<![\d.,])1 (?:more |queued )?([a-z]+)\b/g)) {
        const word = m[1] ?? '';
        if (word.endsWith('s') && !SINGULAR_S.has(word)) throw new Error(`say.${key}: "${text}"`);
      }
      expect(text, key).not.toMatch(/(?<![\d.,])1 messages are/);
    }
    expect(plural(1, 'message')).toBe('1 message');
    expect(plural(2, 'reply', 'replies')).toBe('2 replies');
  });

  it('say an unnamed session is unnamed, never a bare id in brackets', () => {
    for (const { key, text } of phrases) {
      expect(text, key).not.toMatch(/Session: \(|\bon \(|Resumed \(|\(unnamed\)/);
    }
    expect(say.sessionLine(undefined, ID)).toBe(`Session: unnamed, id ${ID} (name it with /rename)`);
    expect(say.resumed(undefined, ID, 1, 'just now')).toBe(
      `Resumed an unnamed session (${ID}): 1 message, last updated just now.`,
    );
  });

  it('give a share of the window the precision it needs, and a compaction that saved nothing says so', () => {
    expect([0, 0.0004, 0.2, 0.25, 9.96, 12.34, 83, 100].map(say.percent)).toEqual([
      '0%',
      '0.0004%',
      '0.2%',
      '0.25%',
      '10%',
      '12.3%',
      '83%',
      '100%',
    ]);
    expect(
      say.compacted({ usedTokens: 412, usedPercentage: 0.206 }, { usedTokens: 430, usedPercentage: 0.215 }),
    ).toBe(
      'Compacted: the history is now one summary, 430 tokens (0.21% of the window); it was already about that small, so nothing was saved.',
    );
    expect(
      say.compacted({ usedTokens: 24_600, usedPercentage: 12.3 }, { usedTokens: 1_200, usedPercentage: 0.6 }),
    ).toBe(
      'Compacted: the history is now one summary; context 24,600 → 1,200 tokens (12.3% → 0.6% of the window).',
    );
  });

  it('leak no placeholder, doubled space or doubled word', () => {
    for (const { key, text } of phrases) {
      expect(text, key).not.toMatch(/undefined|null|NaN|\[object Object\]|\(\)/);
      expect(text, key).not.toMatch(/ {2}| [.,;:]/);
      expect(text, key).not.toMatch(/\b(\w+) \1\b/i);
      expect(text, key).not.toMatch(/thread of this thread/i);
    }
  });
});
