import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitMarkdown, splitMarkdownParts } from '../../../src/bot/format/index.js';

/** Source text back from parts: each part minus the fence lines the splitter added. */
const rejoin = (md: string, max: number) =>
  splitMarkdownParts(md, max)
    .map((p) => p.text.slice(p.prefix.length, p.text.length - p.suffix.length))
    .join('');

describe('splitMarkdown', () => {
  it('returns short text unchanged', () => {
    expect(splitMarkdown('hello world', 100)).toEqual(['hello world']);
  });

  it('prefers a paragraph boundary, then a line, then a space', () => {
    const para = `${'a'.repeat(30)}\n\n${'b'.repeat(30)}`;
    expect(splitMarkdown(para, 40)).toEqual([`${'a'.repeat(30)}\n\n`, 'b'.repeat(30)]);
    const lines = `${'a'.repeat(30)}\n${'b'.repeat(30)}`;
    expect(splitMarkdown(lines, 40)).toEqual([`${'a'.repeat(30)}\n`, 'b'.repeat(30)]);
    const words = 'alpha beta gamma delta epsilon zeta eta theta';
    const chunks = splitMarkdown(words, 20);
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(20);
    expect(chunks.join('')).toBe(words);
    for (const c of chunks.slice(0, -1)) expect(c.endsWith(' ')).toBe(true);
  });

  it('closes a code fence at the end of a chunk and reopens it with its language', () => {
    const code = Array.from({ length: 12 }, (_, i) => `line ${i}`).join('\n');
    const md = `Intro text.\n\n\`\`\`python\n${code}\n\`\`\`\n\nAfter.`;
    const chunks = splitMarkdown(md, 50);
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) {
      expect(c.length).toBeLessThanOrEqual(50);
      const fences = c.split('\n').filter((l) => l.startsWith('```')).length;
      expect(fences % 2, c).toBe(0);
    }
    const reopened = chunks.filter((c) => c.startsWith('```python\n'));
    expect(reopened.length).toBeGreaterThan(1);
    expect(rejoin(md, 50)).toBe(md);
  });

  it('cuts a word only when a chunk has no space at all', () => {
    const chunks = splitMarkdown('x'.repeat(95), 40);
    expect(chunks.map((c) => c.length)).toEqual([40, 40, 15]);
  });

  it('property: chunks fit, and rejoined they are the original text', () => {
    const token = fc.constantFrom(
      'word',
      'longerword',
      ' ',
      '\n',
      '\n\n',
      '```js\n',
      '\n```\n',
      '**',
      '`',
      '~~~\n',
      'é',
      '😀',
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 200 }), fc.integer({ min: 24, max: 120 }), (tokens, max) => {
        const md = tokens.join('');
        const chunks = splitMarkdown(md, max);
        for (const c of chunks) expect(c.length).toBeLessThanOrEqual(max);
        expect(rejoin(md, max)).toBe(md);
      }),
      { numRuns: 300 },
    );
  });
});
