/**
 * Markdown shapes that made the old renderer superlinear or overflow its
 * stack: they render in every dialect, whole and partial, with nesting
 * capped and every character of the excess still in the text. Their cost is
 * measured by the benchmark (bench/rendering.ts), not timed here.
 */
import { describe, expect, it } from 'vitest';
import type { Dialect } from '../../../src/bot/adapter-contract.js';
import { MAX_CONTAINERS_PER_LINE, MAX_INDENT } from '../../../src/bot/format/depth.js';
import { layoutMarkdown, RenderCache, renderMarkdown, toPlainText } from '../../../src/bot/format/index.js';
import { hostileShapes } from '../../fakes/markdown-shapes.js';
import { EVERY_DIALECT, plain, telegramHtml } from '../../helpers/dialects.js';

const DIALECTS: Dialect[] = [...EVERY_DIALECT];

describe('hostile Markdown', () => {
  it('renders every shape in every dialect, whole and partial, without throwing', () => {
    for (const [name, md] of Object.entries(hostileShapes())) {
      for (const dialect of DIALECTS) {
        for (const partial of [false, true]) {
          const out = renderMarkdown(md, dialect, { partial });
          expect(out.length, `${name} ${dialect}`).toBeGreaterThan(0);
        }
      }
    }
  });

  it('caps quote nesting and keeps the excess as text', () => {
    const html = renderMarkdown(`${'>'.repeat(3000)} the end`, telegramHtml);
    expect(html.match(/<blockquote>/g)).toHaveLength(MAX_CONTAINERS_PER_LINE);
    // The other 2,992 markers are still there, as escaped text.
    expect(html.match(/&gt;/g)).toHaveLength(3000 - MAX_CONTAINERS_PER_LINE);
    expect(html).toContain('the end');
  });

  it('caps list nesting and keeps the excess as text', () => {
    const plain = toPlainText(`${'1. '.repeat(2000)}the end`);
    expect(plain.endsWith('the end')).toBe(true);
    expect(plain.match(/1\./g)).toHaveLength(2000);
  });

  it('keeps every row of a 44 KB table', () => {
    const table = hostileShapes().table44k!;
    const out = renderMarkdown(table, telegramHtml);
    // Header, drawn rule, rows: one output line per source line.
    expect(out.split('\n')).toHaveLength(table.split('\n').length);
    expect(out).toContain('last-row');
    expect(out).toContain('file-800.ts');
  });

  it('keeps 1,000 unmatched brackets as text, partial or not', () => {
    expect(renderMarkdown('['.repeat(1000), plain)).toBe('['.repeat(1000));
    // A half-typed link is dropped while streaming; a line of `[` is one.
    expect(renderMarkdown(`${'['.repeat(1000)}x`, plain, { partial: true })).toBe(`${'['.repeat(999)}x`);
  });

  it('caps deep indentation outside code, and leaves code fences alone', () => {
    const deep = Array.from({ length: 60 }, (_, i) => `${' '.repeat(2 * i)}- item ${i}`).join('\n');
    const plain = toPlainText(deep);
    for (let i = 0; i < 60; i++) expect(plain).toContain(`item ${i}`);
    const code = `\`\`\`\ncode\n${' '.repeat(MAX_INDENT * 2)}x\n\`\`\``;
    expect(toPlainText(code)).toBe(`code\n${' '.repeat(MAX_INDENT * 2)}x`);
  });

  it('lays out every shape into parts that fit, streaming through the cache', () => {
    for (const [name, md] of Object.entries(hostileShapes())) {
      const cache = new RenderCache();
      const parts = layoutMarkdown(md, { dialect: telegramHtml, maxLength: 4096, partial: true, cache });
      for (const part of parts) expect(part.rendered.length, name).toBeLessThanOrEqual(4096);
      expect(parts[parts.length - 1]!.end, name).toBe(md.length);
    }
  });
});
