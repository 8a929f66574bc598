/**
 * Fuzzing the model's Markdown on its way to every platform: random strings
 * and random structured Markdown (fences, emphasis, links, lists, tables,
 * HTML-looking text, astral characters) through renderMarkdown for every
 * dialect (whole and partial), toPlainText, splitMarkdown and the
 * rendered-length layout the outbox uses. Nothing throws; every part fits
 * its limit; the parts hold exactly the original text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/bot/adapter-contract.js';
import {
  layoutMarkdown,
  renderMarkdown,
  splitMarkdown,
  splitMarkdownParts,
  toPlainText,
} from '../../src/bot/format/index.js';

import { EVERY_DIALECT } from '../helpers/dialects.js';

const DIALECTS: Dialect[] = [...EVERY_DIALECT];

const word = fc.stringMatching(/^[A-Za-z0-9]{1,8}$/);
/** Pieces of Markdown the model writes, and pieces that break naive renderers. */
const token = fc.oneof(
  word,
  fc.constantFrom(
    ' ',
    '\n',
    '\n\n',
    '```',
    '```ts\n',
    '\n```\n',
    '~~~\n',
    '    indented code\n',
    '**',
    '__',
    '*',
    '_',
    '~~',
    '`',
    '``',
    '[',
    '](',
    ')',
    '](http://x.test/a_(b))',
    '![img](http://x.test/i.png)',
    '<b>',
    '</b>',
    '<script>',
    '&',
    '&amp;',
    '&#x27;',
    '<@U123>',
    '<!channel>',
    '@everyone',
    '# ',
    '### ',
    '> ',
    '- ',
    '1. ',
    '- [ ] ',
    '| a | b |\n|---|---|\n| 1 | 2 |\n',
    '---\n',
    '\\',
    '\\*',
    'é',
    '😀',
    '👩‍👩‍👧',
    '\u200b',
    '\u202e',
    '\r\n',
    '\t',
  ),
);
const structured = fc.array(token, { maxLength: 120 }).map((t) => t.join(''));
const anyText = fc.oneof(
  structured,
  fc.string({ maxLength: 400, unit: 'binary' }),
  fc.string({ maxLength: 300 }),
);

describe('fuzz: Markdown from the model', () => {
  it('renders in every dialect, whole or partial, without throwing', () => {
    fc.assert(
      fc.property(anyText, fc.constantFrom(...DIALECTS), fc.boolean(), (md, dialect, partial) => {
        const out = renderMarkdown(md, dialect, { partial });
        expect(typeof out).toBe('string');
        expect(typeof toPlainText(md)).toBe('string');
      }),
      { numRuns: 300 },
    );
  });

  it('every prefix of a streamed reply renders (the stream is cut anywhere)', () => {
    fc.assert(
      fc.property(structured, fc.constantFrom(...DIALECTS), (md, dialect) => {
        for (let end = 0; end <= md.length; end += Math.max(1, Math.floor(md.length / 12))) {
          expect(typeof renderMarkdown(md.slice(0, end), dialect, { partial: true })).toBe('string');
        }
      }),
      { numRuns: 60 },
    );
  });

  it('splitMarkdown: parts fit and hold exactly the original text', () => {
    fc.assert(
      fc.property(anyText, fc.integer({ min: 40, max: 600 }), (md, max) => {
        const chunks = splitMarkdown(md, max);
        for (const c of chunks) expect(c.length).toBeLessThanOrEqual(max);
        const parts = splitMarkdownParts(md, max);
        const rejoined = parts
          .map((p) => p.text.slice(p.prefix.length, p.text.length - p.suffix.length))
          .join('');
        expect(rejoined).toBe(md);
      }),
      { numRuns: 300 },
    );
  });

  it('layout by rendered length: every rendered part fits the platform limit, parts cover the text in order', () => {
    fc.assert(
      fc.property(
        anyText,
        fc.constantFrom(...DIALECTS),
        fc.integer({ min: 200, max: 2000 }),
        fc.boolean(),
        (md, dialect, maxLength, partial) => {
          const parts = layoutMarkdown(md, { dialect, maxLength, partial });
          let at = 0;
          for (const part of parts) {
            expect(part.start).toBe(at);
            expect(part.end).toBeGreaterThan(part.start);
            expect(part.rendered.length, JSON.stringify(part.text)).toBeLessThanOrEqual(maxLength);
            at = part.end;
          }
          expect(at).toBe(md.length);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('a long reply made of characters that grow when rendered still fits, in every dialect', () => {
    const grows = '&<>&<>'.repeat(2000);
    for (const dialect of DIALECTS) {
      const parts = layoutMarkdown(grows, { dialect, maxLength: 4096 });
      for (const p of parts) expect(p.rendered.length).toBeLessThanOrEqual(4096);
      expect(parts.map((p) => grows.slice(p.start, p.end)).join('')).toBe(grows);
    }
  });
});
