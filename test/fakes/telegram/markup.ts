/**
 * Telegram's entity parsing as the Bot API applies it to `parse_mode` text:
 * HTML and MarkdownV2 are checked the way the server checks them, and the
 * visible text (what the 4096-character limit counts) is returned. A
 * malformed text throws {@link EntityParseError} with Telegram's wording.
 */

/** Thrown for text Telegram would answer "can't parse entities" for. */
export class EntityParseError extends Error {}

const HTML_TAGS = new Set([
  'b',
  'strong',
  'i',
  'em',
  'u',
  'ins',
  's',
  'strike',
  'del',
  'span',
  'tg-spoiler',
  'a',
  'code',
  'pre',
  'blockquote',
  'tg-emoji',
]);

const NAMED_ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"' };

function byteOffset(text: string, index: number): number {
  return Buffer.byteLength(text.slice(0, index), 'utf8');
}

/**
 * Parses Telegram HTML; returns the visible text. `tags` widens the accepted
 * tag set (rich messages accept more HTML than classic ones).
 */
export function parseTelegramHtml(source: string, options: { anyTag?: boolean } = {}): string {
  const stack: { name: string; at: number }[] = [];
  let out = '';
  let i = 0;
  while (i < source.length) {
    const ch = source[i];
    if (ch === '<') {
      const close = source.indexOf('>', i);
      if (close < 0) throw new EntityParseError(`Unclosed start tag at byte offset ${byteOffset(source, i)}`);
      const inner = source.slice(i + 1, close);
      if (inner.startsWith('/')) {
        const name = inner.slice(1).trim().toLowerCase();
        const open = stack.pop();
        if (!open || open.name !== name) {
          throw new EntityParseError(
            `Unmatched end tag at byte offset ${byteOffset(source, i)}, expected "</${open?.name ?? ''}>", found "</${name}>"`,
          );
        }
      } else {
        const match = /^([a-zA-Z][a-zA-Z0-9-]*)(\s[\s\S]*)?$/.exec(inner);
        const name = match?.[1]?.toLowerCase();
        if (!name || (!options.anyTag && !HTML_TAGS.has(name))) {
          throw new EntityParseError(
            `Unsupported start tag "${name ?? inner}" at byte offset ${byteOffset(source, i)}`,
          );
        }
        if (!inner.endsWith('/')) stack.push({ name, at: i });
      }
      i = close + 1;
      continue;
    }
    if (ch === '>') throw new EntityParseError(`Unexpected end tag at byte offset ${byteOffset(source, i)}`);
    if (ch === '&') {
      const semi = source.indexOf(';', i);
      const name = semi > 0 ? source.slice(i + 1, semi) : '';
      if (semi > 0 && semi - i <= 10 && /^(#\d+|#x[0-9a-fA-F]+|[a-zA-Z]+)$/.test(name)) {
        if (name.startsWith('#x')) out += String.fromCodePoint(Number.parseInt(name.slice(2), 16));
        else if (name.startsWith('#')) out += String.fromCodePoint(Number.parseInt(name.slice(1), 10));
        else out += NAMED_ENTITIES[name.toLowerCase()] ?? `&${name};`;
        i = semi + 1;
        continue;
      }
    }
    out += ch;
    i++;
  }
  const open = stack.pop();
  if (open) {
    throw new EntityParseError(`Can't find end tag corresponding to start tag "${open.name}"`);
  }
  return out;
}

const MDV2_RESERVED = new Set('_*[]()~`>#+-=|{}.!'.split(''));
const MDV2_MARKERS = ['```', '||', '__', '*', '_', '~', '`'];

/** Parses MarkdownV2; returns the visible text. */
export function parseMarkdownV2(source: string): string {
  const stack: { marker: string; at: number }[] = [];
  let out = '';
  let i = 0;
  const top = () => stack[stack.length - 1];
  while (i < source.length) {
    const ch = source[i] as string;
    const inCode = top()?.marker === '`' || top()?.marker === '```';
    if (ch === '\\') {
      const next = source[i + 1];
      if (next === undefined)
        throw new EntityParseError(
          `Can't parse entities: trailing escape at byte offset ${byteOffset(source, i)}`,
        );
      out += next;
      i += 2;
      continue;
    }
    if (inCode) {
      const marker = top()?.marker as string;
      if (source.startsWith(marker, i)) {
        stack.pop();
        i += marker.length;
      } else {
        out += ch;
        i++;
      }
      continue;
    }
    const marker = MDV2_MARKERS.find((m) => source.startsWith(m, i));
    if (marker) {
      if (top()?.marker === marker) stack.pop();
      else stack.push({ marker, at: i });
      i += marker.length;
      continue;
    }
    if (ch === '[') {
      stack.push({ marker: '[', at: i });
      i++;
      continue;
    }
    if (ch === ']' && top()?.marker === '[') {
      stack.pop();
      if (source[i + 1] !== '(') {
        throw new EntityParseError(`Character ']' is reserved and must be escaped with the preceding '\\'`);
      }
      const end = source.indexOf(')', i + 2);
      if (end < 0)
        throw new EntityParseError(`Can't find end of a URL at byte offset ${byteOffset(source, i)}`);
      i = end + 1;
      continue;
    }
    if (MDV2_RESERVED.has(ch)) {
      throw new EntityParseError(`Character '${ch}' is reserved and must be escaped with the preceding '\\'`);
    }
    out += ch;
    i++;
  }
  const open = stack.pop();
  if (open) {
    throw new EntityParseError(
      `Can't find end of the entity starting at byte offset ${byteOffset(source, open.at)}`,
    );
  }
  return out;
}

/** The visible text of `text` under `parseMode` (undefined: plain). */
export function visibleText(text: string, parseMode: string | undefined): string {
  if (parseMode === 'HTML') return parseTelegramHtml(text);
  if (parseMode === 'MarkdownV2') return parseMarkdownV2(text);
  if (parseMode === 'Markdown') return text.replace(/[*_`[\]]/g, '');
  return text;
}
