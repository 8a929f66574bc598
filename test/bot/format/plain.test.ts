import { describe, expect, it } from 'vitest';
import type { Dialect } from '../../../src/bot/adapter-contract.js';
import { parseMarkdown } from '../../../src/bot/format/parse.js';
import { renderPlainProse } from '../../../src/bot/format/plain.js';
import { renderBlocks } from '../../../src/bot/format/render.js';
import { EVERY_DIALECT, telegramHtml } from '../../helpers/dialects.js';

const dialects: Dialect[] = [...EVERY_DIALECT];

/** Deterministic PRNG (mulberry32) so a failure reproduces. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Words and separators that sit on both sides of the fast path's rules.
const pieces = [
  'lorem',
  'ipsum',
  'Dolor',
  'sit',
  'amet',
  ' ',
  ' ',
  ' ',
  '  ',
  '\n',
  '\n\n',
  '1.',
  '2)',
  '-',
  '+',
  '=',
  '==',
  '---',
  '#',
  '(x)',
  '"q"',
  "it's",
  'a/b',
  'http://x.io',
  'www.x.io',
  'WWW.y',
  'a@b.c',
  ':',
  ';',
  '!',
  '?',
  '%',
  '$5',
  '*',
  '_',
  '`',
  '~',
  '[l](u)',
  '<b>',
  '&amp;',
  '|',
  '>',
  '\\',
  '\t',
  'caf\u00e9',
  '    code',
];

const safe = [
  'lorem',
  'ipsum',
  'Dolor',
  'sit',
  ' ',
  ' ',
  '\n',
  'a, b.',
  '(x)',
  '"q"',
  '50%',
  'a/b',
  'c-d',
  'e=f',
];

/** Mostly prose, with a near miss now and then, so both answers are exercised. */
function sample(next: () => number): string {
  let s = '';
  const n = 1 + Math.floor(next() * 14);
  for (let i = 0; i < n; i++) {
    const from = next() < 0.85 ? safe : pieces;
    s += from[Math.floor(next() * from.length)];
  }
  return s;
}

describe('plain prose fast path', () => {
  it('renders exactly what the parser renders, in every dialect, whenever it answers', () => {
    const next = rng(7);
    let answered = 0;
    let declined = 0;
    for (let i = 0; i < 4000; i++) {
      const md = sample(next);
      for (const dialect of dialects) {
        const fast = renderPlainProse(md, dialect);
        if (fast === undefined) {
          declined++;
          continue;
        }
        answered++;
        expect(fast, JSON.stringify(md)).toBe(renderBlocks(parseMarkdown(md), dialect));
      }
    }
    // The comparison must have covered many inputs, not just declined them all.
    expect(answered).toBeGreaterThan(2000);
    expect(declined).toBeGreaterThan(2000);
  });

  it('answers for a growing single paragraph of prose, cut anywhere', () => {
    const text =
      'Switchboard streams (fast) replies: one edit per second, 50% less; it is "good".\nNext line - ok. ';
    for (let end = 0; end <= text.length; end++) {
      const md = text.slice(0, end);
      for (const dialect of dialects) {
        const fast = renderPlainProse(md, dialect);
        expect(fast, JSON.stringify(md)).toBeDefined();
        expect(fast).toBe(renderBlocks(parseMarkdown(md), dialect));
      }
    }
  });

  it('declines anything that could be syntax', () => {
    const risky = [
      '1. item',
      '- item',
      'Title\n===',
      'a  \nb',
      'see www.example.com',
      'go http://x.io',
      'a **b**',
      'a `b`',
      'x < y',
      'a & b',
      '# h',
      'a | b',
      'mail a@b.co',
      'p\n\nq',
      ' indented',
      'a\tb',
      'a\\b',
      'a_b',
      'a~b',
    ];
    for (const md of risky) expect(renderPlainProse(md, telegramHtml), md).toBeUndefined();
  });
});
