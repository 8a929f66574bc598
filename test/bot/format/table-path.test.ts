/**
 * The cheaper table path (src/bot/format/table-rule.ts) gives the tables
 * markdown-it's own table rule gives: the same tables in the same places,
 * the same column alignments, and each cell's text as markdown-it parsed it
 * (markup dropped, images left out). The reference is a stock markdown-it
 * with the same options, so a change of grammar in markdown-it shows here.
 */
import fc from 'fast-check';
import MarkdownIt from 'markdown-it';
import type { Nodes, PhrasingContent, Root, Table } from 'mdast';
import { describe, expect, it } from 'vitest';
import { capNesting } from '../../../src/bot/format/depth.js';
import { parseMarkdown, renderMarkdown } from '../../../src/bot/format/index.js';
import { inlinePlainText } from '../../../src/bot/format/table-rule.js';
import { hostileShapes } from '../../fakes/markdown-shapes.js';
import { plain } from '../../helpers/dialects.js';

interface TableShape {
  align: (string | null)[];
  rows: string[][];
}

const reference = new MarkdownIt('default', { html: false, linkify: true, maxNesting: 200 });
reference.linkify.set({ fuzzyLink: false, fuzzyEmail: false, fuzzyIP: false });

/** The tables of markdown-it's own token stream, and the block types at the top level. */
function referenceShape(md: string): { tables: TableShape[]; top: string[] } {
  const tables: TableShape[] = [];
  const top: string[] = [];
  let table: TableShape | undefined;
  let row: string[] = [];
  for (const t of reference.parse(capNesting(md), {})) {
    if (t.level === 0 && t.nesting >= 0)
      top.push(t.type === 'table_open' ? 'table' : t.type.replace(/_open$/, ''));
    if (t.type === 'table_open') table = { align: [], rows: [] };
    else if (t.type === 'table_close' && table) {
      tables.push(table);
      table = undefined;
    } else if (t.type === 'th_open' && table) {
      const m = /text-align:(\w+)/.exec(String(t.attrGet('style') ?? ''));
      table.align.push(m ? m[1]! : null);
    } else if (t.type === 'tr_open') row = [];
    else if (t.type === 'tr_close') table?.rows.push(row);
    else if (t.type === 'inline' && table) row.push(inlinePlainText(t.children ?? []));
  }
  return { tables, top };
}

/** The same, read from our tree. */
function ourShape(root: Root): { tables: TableShape[]; top: string[] } {
  const tables: TableShape[] = [];
  const walk = (node: Nodes) => {
    if (node.type === 'table') {
      const t = node as Table;
      tables.push({
        align: t.align ?? [],
        rows: t.children.map((r) =>
          r.children.map((c) => (c.children as PhrasingContent[]).map(textOf).join('')),
        ),
      });
      return;
    }
    if ('children' in node) for (const child of node.children as Nodes[]) walk(child);
  };
  walk(root);
  const top = root.children.map((n) => (n.type === 'thematicBreak' ? 'hr' : n.type));
  return { tables, top };
}

function textOf(node: PhrasingContent): string {
  return 'value' in node ? node.value : '';
}

/** Our top-level node names in markdown-it's words, for comparing the block sequence. */
const MDAST_TO_TOKEN: Record<string, string> = {
  paragraph: 'paragraph',
  heading: 'heading',
  blockquote: 'blockquote',
  list: 'list',
  table: 'table',
  code: 'code',
  hr: 'hr',
  html: 'html_block',
};

function normalizeTop(top: string[]): string[] {
  return top.map((t) =>
    t === 'bullet_list' || t === 'ordered_list'
      ? 'list'
      : t === 'fence' || t === 'code_block'
        ? 'code'
        : (MDAST_TO_TOKEN[t] ?? t),
  );
}

const cell = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    'a',
    'x y',
    '`code`',
    '`a|b`',
    '**b**',
    '_i_',
    '\\|',
    'a\\|b',
    '[l](https://x.dev)',
  ),
  fc.constantFrom(
    '![img](https://x.dev/i.png)',
    '<b>',
    '&amp;',
    'https://x.dev/p',
    '~~s~~',
    '* a *',
    '1.',
    '#',
    '>',
  ),
  fc.stringMatching(/^[a-z |\\`*_:-]{0,6}$/),
);
const row = fc
  .array(cell, { minLength: 0, maxLength: 5 })
  .chain((cells) =>
    fc.tuple(fc.constant(cells), fc.boolean(), fc.boolean(), fc.constantFrom('', ' ', '  ', '    ')),
  );
const line = fc.oneof(
  row.map(
    ([cells, lead, trail, indent]) => `${indent}${lead ? '|' : ''}${cells.join('|')}${trail ? '|' : ''}`,
  ),
  fc.constantFrom('|---|---|', '---|:-:', '| :-- | --: | :-: |', '|-|', '- | -', '-', ':-', '| --- |', '|'),
  fc.constantFrom(
    '',
    'text',
    '> quote | x',
    '- item | y',
    '1. one | two',
    '```',
    '# head | x',
    '    code | x',
  ),
);

describe('the cheaper table path', () => {
  it('finds the tables markdown-it finds, with the same alignments and cell text', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 12 }), (lines) => {
        const md = lines.join('\n');
        const ours = ourShape(parseMarkdown(md));
        const theirs = referenceShape(md);
        expect(ours.tables).toEqual(theirs.tables);
        expect(normalizeTop(ours.top)).toEqual(normalizeTop(theirs.top));
      }),
      { numRuns: 400 },
    );
  });

  it('draws the 44 KB table with every cell, the code kept as text', () => {
    const table = hostileShapes().table44k!;
    const out = renderMarkdown(table, plain);
    expect(out).toContain('file-800.ts | module | 5600 B | a note here');
    expect(out.split('\n')).toHaveLength(table.split('\n').length);
  });
});
