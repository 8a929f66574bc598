/**
 * markdown-it's flat token stream turned into the mdast tree the renderer
 * walks. markdown-it is the parser because it stays linear on the hostile
 * shapes that made micromark superlinear (bench/rendering.ts measures them);
 * mdast stays the tree because it is the
 * well-documented shape the renderer was written against. The walk is
 * iterative (an explicit stack), so no input can overflow the call stack here.
 */

import type { Token } from 'markdown-it';
import type {
  Blockquote,
  Code,
  Heading,
  List,
  ListItem,
  Paragraph,
  Parent,
  PhrasingContent,
  Root,
  RootContent,
  Table,
  TableCell,
  TableRow,
} from 'mdast';
import { TABLE_TOKEN, type TableMeta } from './table-rule.js';

type Open = Parent & { children: RootContent[] };

/** Builds an mdast root from markdown-it block tokens. */
export function tokensToTree(tokens: readonly Token[]): Root {
  const root: Root = { type: 'root', children: [] };
  const stack: Open[] = [root as Open];
  /** Lists whose items hold a visible (not tight-hidden) paragraph. */
  const spreadLists = new Set<List>();
  const top = () => stack[stack.length - 1]!;
  const push = (node: RootContent & Open) => {
    top().children.push(node);
    stack.push(node);
  };
  for (const token of tokens) {
    switch (token.type) {
      case 'paragraph_open': {
        if (!token.hidden && top().type === 'listItem') {
          const list = stack[stack.length - 2] as List | undefined;
          if (list) spreadLists.add(list);
        }
        push({ type: 'paragraph', children: [] } as Paragraph as Paragraph & Open);
        break;
      }
      case 'heading_open':
        push({
          type: 'heading',
          depth: Number(token.tag.slice(1)) as Heading['depth'],
          children: [],
        } as Heading & Open);
        break;
      case 'blockquote_open':
        push({ type: 'blockquote', children: [] } as Blockquote & Open);
        break;
      case 'bullet_list_open':
      case 'ordered_list_open': {
        const start = token.attrGet('start');
        const list: List = {
          type: 'list',
          ordered: token.type === 'ordered_list_open',
          spread: false,
          children: [],
        };
        if (list.ordered) list.start = start === null ? 1 : Number(start);
        push(list as List & Open);
        break;
      }
      case 'list_item_open':
        push({ type: 'listItem', spread: false, children: [] } as ListItem & Open);
        break;
      case 'inline':
        top().children.push(...(inlineToPhrasing(token.children ?? []) as RootContent[]));
        break;
      case 'fence':
      case 'code_block': {
        const lang = token.type === 'fence' ? token.info.trim().split(/\s+/)[0] || null : null;
        top().children.push({ type: 'code', lang, value: token.content.replace(/\n$/, '') } as Code);
        break;
      }
      case TABLE_TOKEN:
        top().children.push(tableNode(token.meta as TableMeta));
        break;
      case 'hr':
        top().children.push({ type: 'thematicBreak' });
        break;
      case 'html_block':
        top().children.push({ type: 'html', value: token.content.replace(/\n$/, '') });
        break;
      default:
        if (token.nesting === -1 && stack.length > 1) {
          const closed = stack.pop()!;
          if (closed.type === 'list') (closed as List).spread = spreadLists.has(closed as List);
          if (closed.type === 'listItem') markTask(closed as ListItem);
        }
    }
  }
  return root;
}

/** A table from the cheap path: each cell one text node (every dialect shows cells as plain text). */
function tableNode(meta: TableMeta): Table {
  return {
    type: 'table',
    align: meta.align,
    children: meta.rows.map(
      (row): TableRow => ({
        type: 'tableRow',
        children: row.map((value): TableCell => ({ type: 'tableCell', children: [{ type: 'text', value }] })),
      }),
    ),
  };
}

/** GFM task list item: `[ ] ` or `[x] ` opening the item's first paragraph. */
function markTask(item: ListItem): void {
  const first = item.children[0];
  if (first?.type !== 'paragraph') return;
  const text = first.children[0];
  if (text?.type !== 'text') return;
  const m = /^\[([ xX])\](?:[ \t]+|$)/.exec(text.value);
  if (!m) return;
  item.checked = m[1] !== ' ';
  text.value = text.value.slice(m[0].length);
  if (text.value === '') first.children.shift();
}

type PhrasingParent = { children: PhrasingContent[] };

/** Inline tokens to phrasing nodes; adjacent text (soft breaks included) merged into one node. */
function inlineToPhrasing(tokens: readonly Token[]): PhrasingContent[] {
  const root: PhrasingParent = { children: [] };
  const stack: PhrasingParent[] = [root];
  const top = () => stack[stack.length - 1]!;
  const addText = (value: string) => {
    const siblings = top().children;
    const last = siblings[siblings.length - 1];
    if (last?.type === 'text') last.value += value;
    else siblings.push({ type: 'text', value });
  };
  const open = (node: PhrasingContent & PhrasingParent) => {
    top().children.push(node);
    stack.push(node);
  };
  for (const token of tokens) {
    switch (token.type) {
      case 'text':
      case 'text_special':
        addText(token.content);
        break;
      case 'softbreak':
        addText('\n');
        break;
      case 'hardbreak':
        top().children.push({ type: 'break' });
        break;
      case 'code_inline':
        top().children.push({ type: 'inlineCode', value: token.content });
        break;
      case 'html_inline':
        top().children.push({ type: 'html', value: token.content });
        break;
      case 'image':
        top().children.push({ type: 'image', url: String(token.attrGet('src') ?? ''), alt: token.content });
        break;
      case 'strong_open':
        open({ type: 'strong', children: [] });
        break;
      case 'em_open':
        open({ type: 'emphasis', children: [] });
        break;
      case 's_open':
        open({ type: 'delete', children: [] });
        break;
      case 'link_open':
        open({ type: 'link', url: String(token.attrGet('href') ?? ''), children: [] });
        break;
      default:
        if (token.nesting === -1 && stack.length > 1) stack.pop();
        else if (token.content) addText(token.content);
    }
  }
  return root.children;
}
