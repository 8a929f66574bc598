import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Dialect } from '../../../src/bot/adapter-contract.js';
import {
  blockGroups,
  RenderCache,
  renderIncremental,
  renderMarkdown,
} from '../../../src/bot/format/index.js';
import { renderWork } from '../../../src/bot/format/render-source.js';
import { EVERY_DIALECT, markdown, plain, telegramHtml } from '../../helpers/dialects.js';

const reply = [
  'Intro with **bold** and `code`.',
  '',
  '1. First step',
  '2. Second step',
  '',
  '   ```bash',
  '   npm test',
  '',
  '   npm run build',
  '   ```',
  '',
  '3. Third step',
  '',
  '```ts',
  'const a = 1;',
  '',
  'const b = a < 2;',
  '```',
  '',
  '> quoted',
  '',
  '| a | b |',
  '|---|---|',
  '| 1 | 2 |',
  '',
  'Last paragraph & done.',
].join('\n');

describe('incremental rendering', () => {
  it('cuts into block groups that rejoin to the text, never inside a fence or an indented continuation', () => {
    const groups = blockGroups(reply);
    expect(groups.join('')).toBe(reply);
    expect(groups.some((g) => g.includes('   ```bash\n   npm test\n\n   npm run build'))).toBe(true);
    expect(groups.some((g) => g.includes('const a = 1;\n\nconst b'))).toBe(true);
    expect(groups.map((g) => g.split('\n')[0])).toEqual([
      'Intro with **bold** and `code`.',
      '```ts',
      '> quoted',
      '| a | b |',
      'Last paragraph & done.',
    ]);
  });

  it('renders like a whole-document render, for every dialect', () => {
    const dialects: Dialect[] = [...EVERY_DIALECT];
    for (const d of dialects) {
      const cache = new RenderCache();
      expect(renderIncremental(reply, d, false, cache)).toBe(renderMarkdown(reply, d));
    }
  });

  it('matches a healed full render for every prefix while streaming, reusing finished groups', () => {
    const cache = new RenderCache();
    for (let i = 1; i <= reply.length; i++) {
      const prefix = reply.slice(0, i);
      expect(renderIncremental(prefix, telegramHtml, true, cache), `prefix ${i}`).toBe(
        renderMarkdown(prefix, telegramHtml, { partial: true }),
      );
    }
  });

  it('renders each finished group once while streaming, and the final text not again', () => {
    const cache = new RenderCache(8);
    const before = renderWork.chars;
    for (let i = 1; i <= reply.length; i++) renderIncremental(reply.slice(0, i), telegramHtml, true, cache);
    const streamed = renderWork.chars - before;
    // Each prefix renders its growing last group; a finished group is rendered once more, when it is done.
    let lastGroups = 0;
    for (let i = 1; i <= reply.length; i++) lastGroups += blockGroups(reply.slice(0, i)).at(-1)!.length;
    expect(streamed).toBeLessThanOrEqual(lastGroups + reply.length);
    // The last group needed no healing, so its live rendering is the final one.
    const finalStart = renderWork.chars;
    const final = renderIncremental(reply, telegramHtml, false, cache);
    expect(renderWork.chars - finalStart).toBe(0);
    expect(final).toBe(renderMarkdown(reply, telegramHtml));
  });

  it('renders a list growing item by item like a whole render, for every prefix, rendering each item once', () => {
    const line = fc.oneof(
      fc.constantFrom(
        '- item **bold',
        '- plain item',
        '* star item',
        '+ plus',
        '- `code` and [x](https://x.dev)',
      ),
      fc.constantFrom('  nested text', '  - nested item', 'lazy words', '1. ordered', '# heading', '> quote'),
      fc.constantFrom(
        '',
        '```',
        '  ```',
        '- - -',
        '---',
        'Intro:',
        '    indented code',
        '- a ** b',
        '- end`',
      ),
    );
    const dialects: Dialect[] = [...EVERY_DIALECT];
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 8 }),
        fc.constantFrom(...dialects),
        (lines, d) => {
          streamsLikeWholeRenders(lines.join('\n'), d);
        },
      ),
      { numRuns: 250 },
    );
    // A tight list of 200 items streamed a character at a time renders each finished item once.
    const list = Array.from({ length: 200 }, (_, i) => `- item ${i} with *emphasis*`).join('\n');
    const cache = new RenderCache();
    const before = renderWork.chars;
    let lastItems = 0;
    for (let i = 1; i <= list.length; i++) {
      renderIncremental(list.slice(0, i), telegramHtml, true, cache);
      lastItems += i - list.lastIndexOf('\n- ', i - 1);
    }
    expect(renderWork.chars - before).toBeLessThanOrEqual(lastItems + list.length);
  });

  it('a fence inside a list item that a fence at the margin follows: no cut inside the code that opens', () => {
    // The item's fence ends with the item; the margin's fence opens a code block that holds `- i`.
    const cases = ['- item **bold\n  ```\n```\n- item **bold', '- a\n  ```\n```\n\nafter'];
    for (const md of cases) {
      for (const d of [telegramHtml, markdown] as Dialect[]) streamsLikeWholeRenders(md, d);
    }
  });

  it('keeps the whitespace at the ends of a piece that a whole render keeps, for every dialect', () => {
    streamInEveryDialect([
      // Plain text writes code without fences: the indentation of a code block's first line is the code's.
      '- item **bold\n\n```\n  n',
      'a\n\n```\n\n\nx\n```',
      '```\nx\n\n```\n\nIntro:',
      'a\n\n`  a`',
      // An empty item in the middle of a list keeps its marker's space.
      '- a\n-\n- b',
      '- a\n- \n- b',
      // Entities that decode to spaces start a paragraph.
      'a\n\n&#32;x',
      'a\n\n&nbsp;x',
      // A table drawn as text whose first cell is empty starts with its padding.
      'x\n\n| | b |\n|---|---|\n| 1 | 2 |',
    ]);
    expect(renderIncremental('- item **bold\n\n```\n  n', plain, false, new RenderCache())).toBe(
      '• item **bold\n\n  n',
    );
  });

  it('a line of words after an item that ends in no paragraph: not cut as one list, for every dialect', () => {
    // The words are a paragraph after the list (nothing open to continue lazily), and the next item starts a new list.
    streamInEveryDialect([
      '-\nlazy words\n- b',
      '- # h\nlazy words\n- b',
      '- ***\nlazy words\n- b',
      '-     code\nlazy words\n- b',
      '- ```\n  code\nlazy words\n- b',
      // Under a paragraph a bare bullet underlines a heading.
      'Intro:\n-\n- b',
    ]);
  });
});

/** {@link streamsLikeWholeRenders} for each of `cases` in every dialect. */
function streamInEveryDialect(cases: readonly string[]): void {
  for (const md of cases) {
    for (const d of EVERY_DIALECT) streamsLikeWholeRenders(md, d);
  }
}

/** Every prefix of `md`, streamed through one cache, renders as a healed whole render; the final text as a whole render. */
function streamsLikeWholeRenders(md: string, d: Dialect): void {
  const cache = new RenderCache();
  for (let i = 1; i <= md.length; i++) {
    const prefix = md.slice(0, i);
    expect(renderIncremental(prefix, d, true, cache), JSON.stringify(prefix)).toBe(
      renderMarkdown(prefix, d, { partial: true }),
    );
  }
  expect(renderIncremental(md, d, false, cache)).toBe(renderMarkdown(md, d));
}
