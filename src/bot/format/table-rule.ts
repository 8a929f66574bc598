/**
 * A cheaper path for GFM tables. Every dialect shows a table cell as plain
 * text, yet markdown-it makes about a dozen tokens per row and parses each
 * cell's inline content into more tokens; its Token constructor defines each
 * field one by one, so a 44 KB table cost more in token objects than in
 * parsing. markdown-it's own table rule still decides what is a table and
 * where it ends (the grammar stays theirs); while it runs, its tokens are
 * recorded as plain objects, then the whole table becomes one `gfm_table`
 * token carrying each cell's plain text, and a cell is run through the
 * inline parser only when it holds a character that could be markup.
 */
import type { MarkdownIt, StateBlock, Token } from 'markdown-it';
import type { AlignType } from 'mdast';

/** What a `gfm_table` token carries in its `meta`. */
export interface TableMeta extends Record<string, unknown> {
  align: (AlignType | null)[];
  /** The header row first; each cell's plain text (markup dropped, as a table cell shows it). */
  rows: string[][];
}

/** The token type this rule emits instead of markdown-it's table tokens. */
export const TABLE_TOKEN = 'gfm_table';

/**
 * Characters at which markdown-it's inline rules may start something (its
 * text rule stops at exactly these). A cell without any of them parses to
 * one text token holding the cell as written.
 */
const INLINE_SYNTAX = /[\n!#$%&*+\-:<=>@[\\\]^_`{}~]/;

type RecordedToken = Pick<Token, 'type' | 'content' | 'attrs'>;

/** Replaces markdown-it's block rule `table` with the cheaper path described above. */
export function useCheapTables(md: MarkdownIt): void {
  const ruler = md.block.ruler;
  const entry = ruler.__rules__[ruler.__find__('table')];
  if (!entry) throw new Error('markdown-it has no block rule "table"');
  const original = entry.fn;
  // `at` resets the chains a rule may interrupt: keep the original's.
  ruler.at(
    'table',
    (state, startLine, endLine, silent) => {
      if (silent) return original(state, startLine, endLine, true);
      const recorded = recordPushes(state, () => original(state, startLine, endLine, false));
      if (!recorded.matched) return false;
      const token = state.push(TABLE_TOKEN, 'table', 0);
      token.map = [startLine, state.line];
      token.meta = tableMeta(recorded.tokens, (source) => cellText(md, state, source));
      return true;
    },
    { alt: [...entry.alt] },
  );
}

/** Runs `rule` with the state's `push` recording plain objects instead of making Tokens. */
function recordPushes(state: StateBlock, rule: () => boolean): { matched: boolean; tokens: RecordedToken[] } {
  const tokens: RecordedToken[] = [];
  const push = (type: string): Token => {
    const token: RecordedToken = { type, content: '', attrs: null };
    tokens.push(token);
    return token as Token;
  };
  // An own property shadows the prototype's push only while the table rule runs.
  Object.defineProperty(state, 'push', { value: push, configurable: true, writable: true });
  try {
    return { matched: rule(), tokens };
  } finally {
    delete (state as { push?: unknown }).push;
  }
}

function tableMeta(tokens: readonly RecordedToken[], text: (source: string) => string): TableMeta {
  const align: (AlignType | null)[] = [];
  const rows: string[][] = [];
  let row: string[] = [];
  for (const token of tokens) {
    if (token.type === 'tr_open') row = [];
    else if (token.type === 'tr_close') rows.push(row);
    else if (token.type === 'th_open') align.push(alignOf(token.attrs));
    else if (token.type === 'inline') row.push(text(token.content));
  }
  return { align, rows };
}

/** markdown-it writes a column's alignment as `style="text-align:left"`. */
function alignOf(attrs: Token['attrs']): AlignType | null {
  const style = attrs?.find(([name]) => name === 'style')?.[1] ?? '';
  const m = /text-align:\s*(left|right|center)/.exec(String(style));
  return m ? (m[1] as AlignType) : null;
}

/** A cell's text as the renderer shows it: markup dropped, images left out, code kept as text. */
function cellText(md: MarkdownIt, state: StateBlock, source: string): string {
  if (!INLINE_SYNTAX.test(source)) return source;
  const tokens: Token[] = [];
  md.inline.parse(source, md, state.env, tokens);
  return inlinePlainText(tokens);
}

/** The text of a cell's inline tokens as a table shows it (markup dropped, images left out). */
export function inlinePlainText(tokens: readonly Token[]): string {
  let out = '';
  for (const token of tokens) {
    if (token.type === 'image') continue;
    if (token.type === 'softbreak') out += '\n';
    else if (token.type === 'hardbreak') out += ' ';
    else if (token.nesting === 0) out += token.content;
  }
  return out;
}
