/**
 * Renders an mdast tree into one dialect. Block structure (lists, quotes,
 * tables, code) is laid out here; the dialect's {@link Syntax} spells the
 * markup. Every text node goes through the dialect's escaper, so a partial
 * reply can never produce an unbalanced tag or a stray marker.
 */
import type { Nodes, Parents, PhrasingContent, Root, RootContent, Table } from 'mdast';
import type { Dialect, MentionPolicy } from '../adapter-contract.js';
import { syntaxFor } from './dialects.js';
import type { Syntax } from './syntax.js';

/** Renders a parsed tree in `dialect`, keeping the mentions `mentions` allows. */
export function renderTree(root: Root, dialect: Dialect, mentions: MentionPolicy = 'none'): string {
  return renderBlocks(root, dialect, mentions).trim();
}

/**
 * {@link renderTree} without trimming the ends: the tree's blocks, one blank
 * line apart. Whitespace at either end can belong to a block (a code line's
 * indentation, a blank line closing a code block, an empty list item's
 * marker space) and is only dropped at the very ends of a whole document, so
 * a piece of a document (incremental.ts) is rendered with this and the
 * joined pieces are trimmed once.
 */
export function renderBlocks(root: Root, dialect: Dialect, mentions: MentionPolicy = 'none'): string {
  return blocks(root.children, syntaxFor(dialect, mentions));
}

function blocks(nodes: readonly RootContent[], s: Syntax, tight = false): string {
  const out: string[] = [];
  for (const node of nodes) {
    const rendered = block(node, s);
    if (rendered !== '') out.push(rendered);
  }
  return out.join(tight ? '\n' : '\n\n');
}

function block(node: RootContent, s: Syntax): string {
  switch (node.type) {
    case 'paragraph':
      return inline(node.children, s);
    case 'heading':
      return s.heading(node.depth, inline(node.children, s));
    case 'code':
      return s.code(node.value, node.lang ?? undefined);
    case 'blockquote':
      return s.quote(blocks(node.children, s));
    case 'list':
      return list(node.children, node.ordered === true, node.start ?? 1, node.spread === true, s);
    case 'thematicBreak':
      return s.rule;
    case 'table':
      return table(node, s);
    case 'html':
      return s.text(node.value);
    case 'definition':
      return '';
    case 'footnoteDefinition':
      return `${s.text(`[^${node.identifier}]: `)}${blocks(node.children, s, true)}`;
    default:
      return 'children' in node ? inline((node as Parents).children as PhrasingContent[], s) : text(node, s);
  }
}

function list(items: readonly RootContent[], ordered: boolean, start: number, spread: boolean, s: Syntax) {
  const lines: string[] = [];
  let n = start;
  for (const item of items) {
    if (item.type !== 'listItem') continue;
    let marker = ordered ? `${n++}. ` : s.bullet;
    if (item.checked === true) marker += '☑ ';
    else if (item.checked === false) marker += '☐ ';
    const body = blocks(item.children, s, !spread);
    const indent = ' '.repeat(ordered ? marker.length : 2);
    const [first = '', ...rest] = body.split('\n');
    lines.push(marker + first + rest.map((l) => (l === '' ? '\n' : `\n${indent}${l}`)).join(''));
  }
  return lines.join(spread ? '\n\n' : '\n');
}

function table(node: Table, s: Syntax): string {
  const rows = node.children.map((row) => row.children.map((cell) => plainInline(cell.children).trim()));
  if (s.keepsTables) {
    const cols = Math.max(...rows.map((r) => r.length));
    const esc = (c: string) => s.text(c).replace(/\n/g, ' ');
    const lines = rows.map(
      (r) => `| ${Array.from({ length: cols }, (_, i) => esc(r[i] ?? '')).join(' | ')} |`,
    );
    const align = Array.from({ length: cols }, (_, i) => {
      const a = node.align?.[i];
      return a === 'center' ? ':---:' : a === 'right' ? '---:' : a === 'left' ? ':---' : '---';
    });
    lines.splice(1, 0, `| ${align.join(' | ')} |`);
    return lines.join('\n');
  }
  const widths: number[] = [];
  for (const r of rows) {
    r.forEach((c, i) => {
      widths[i] = Math.max(widths[i] ?? 0, c.length);
    });
  }
  const line = (r: string[]) =>
    widths
      .map((w, i) => (r[i] ?? '').padEnd(w))
      .join(' | ')
      .trimEnd();
  const drawn = rows.map(line);
  drawn.splice(1, 0, widths.map((w) => '-'.repeat(w)).join('-+-'));
  return s.preformatted(drawn.join('\n'));
}

function inline(nodes: readonly PhrasingContent[], s: Syntax): string {
  let out = '';
  for (const node of nodes) out += phrase(node, s);
  return out;
}

function phrase(node: PhrasingContent, s: Syntax): string {
  switch (node.type) {
    case 'text':
      return s.text(node.value);
    case 'strong':
      return wrap(inline(node.children, s), s.strong);
    case 'emphasis':
      return wrap(inline(node.children, s), s.emphasis);
    case 'delete':
      return wrap(inline(node.children, s), s.strike);
    case 'inlineCode':
      return node.value === '' ? '' : s.inlineCode(node.value);
    case 'break':
      return '\n';
    case 'link': {
      const inner = inline(node.children, s);
      if (!s.linkAllowed(node.url)) return unlinked(inner, node.url, s);
      return s.link(node.url, inner === '' ? s.text(node.url) : inner);
    }
    case 'image':
      if (!node.url) return s.text(node.alt ?? '');
      if (!s.linkAllowed(node.url)) return unlinked(s.text(node.alt ?? ''), node.url, s);
      return s.link(node.url, s.text(node.alt || node.url));
    case 'linkReference':
    case 'imageReference':
      return 'children' in node ? inline(node.children, s) : s.text(node.alt ?? '');
    case 'footnoteReference':
      return s.text(`[^${node.identifier}]`);
    case 'html':
      return s.text(node.value);
    default:
      return text(node, s);
  }
}

/** A link whose target may not become a link: its label, then the target as text. */
function unlinked(inner: string, url: string, s: Syntax): string {
  return inner === '' ? s.text(url) : `${inner}${s.text(` (${url})`)}`;
}

/** Empty emphasis would be a bare pair of markers: leave it out. */
function wrap(inner: string, f: (s: string) => string): string {
  return inner.trim() === '' ? inner : f(inner);
}

function text(node: Nodes, s: Syntax): string {
  return 'value' in node && typeof node.value === 'string' ? s.text(node.value) : '';
}

/** Text content of phrasing nodes, no markup (table cells). */
function plainInline(nodes: readonly PhrasingContent[]): string {
  let out = '';
  for (const n of nodes) {
    if ('value' in n && typeof n.value === 'string') out += n.value;
    else if ('children' in n) out += plainInline(n.children as PhrasingContent[]);
    else if (n.type === 'break') out += ' ';
  }
  return out;
}
