/**
 * Rendering a growing reply without re-parsing all of it on every flush. The
 * text is cut into top-level block groups (at a blank line followed by an
 * unindented line that does not start a list item, outside code fences),
 * and a group that is one tight bullet list is cut again before each item:
 * each piece renders the same alone as inside the whole document, so
 * finished pieces are rendered once and cached, and only the last, growing
 * one is parsed again. A piece's rendering keeps the whitespace at its ends
 * (a code line's indentation, an empty item's marker space): a whole render
 * trims only the document's ends, so the joined pieces are trimmed once.
 */
import type { Dialect, MentionPolicy } from '../adapter-contract.js';
import { dialectKey } from './dialects.js';
import { healPartialMarkdown } from './parse.js';
import { renderSourceBlocks } from './render-source.js';
import { stepFence } from './split.js';

/**
 * Rendered block groups by dialect and source; bounded, the least recently
 * used dropped first. The growing last group's rendering is held in one slot
 * of its own: a reply's many prefixes would otherwise push finished groups
 * out, and when that text turns out to be final (nothing was left to heal)
 * its rendering is reused instead of rendering it once more.
 */
export class RenderCache {
  readonly #map = new Map<string, string>();
  readonly #limit: number;
  #live: { key: string; out: string } | undefined;

  constructor(limit = 256) {
    this.#limit = limit;
  }

  /**
   * `source`, a piece of a document, rendered in `dialect` as final text with
   * its ends untrimmed, keeping the mentions `mentions` allows.
   */
  render(source: string, dialect: Dialect, mentions: MentionPolicy = 'none'): string {
    // A finished group is asked for again on every flush: its rendering is found before it is scanned for items.
    const key = cacheKey(source, dialect, mentions);
    const hit = this.#cached(key);
    if (hit !== undefined) return this.#keep(key, hit);
    const runs = itemRuns(source);
    const out = runs
      ? runs.map((run) => this.#render(run, dialect, mentions)).join('\n')
      : renderSourceBlocks(source, dialect, false, mentions);
    return this.#keep(key, out);
  }

  /** `source`, a reply's growing last group, rendered healed (as `renderSourceBlocks(source, dialect, true)`). */
  renderLive(source: string, dialect: Dialect, mentions: MentionPolicy = 'none'): string {
    const healed = healPartialMarkdown(source);
    // Healing changes only the end, so every item before the last is a finished one, rendered once.
    const runs = itemRuns(healed) ?? [healed];
    const done = runs.slice(0, -1).map((run) => this.#render(run, dialect, mentions));
    return [...done, this.#renderLive(runs.at(-1)!, dialect, mentions)].join('\n');
  }

  #render(source: string, dialect: Dialect, mentions: MentionPolicy): string {
    const key = cacheKey(source, dialect, mentions);
    return this.#keep(key, this.#cached(key) ?? renderSourceBlocks(source, dialect, false, mentions));
  }

  /**
   * The rendering held under `key` (in the map, removed so that keeping it
   * again makes it the most recently used, or in the live slot).
   */
  #cached(key: string): string | undefined {
    const out = this.#map.get(key);
    if (out === undefined) return this.#live?.key === key ? this.#live.out : undefined;
    this.#map.delete(key);
    return out;
  }

  #keep(key: string, out: string): string {
    this.#map.set(key, out);
    if (this.#map.size > this.#limit) this.#map.delete(this.#map.keys().next().value!);
    return out;
  }

  #renderLive(healed: string, dialect: Dialect, mentions: MentionPolicy): string {
    const key = cacheKey(healed, dialect, mentions);
    const cached = this.#map.get(key) ?? (this.#live?.key === key ? this.#live.out : undefined);
    if (cached !== undefined) return cached;
    const out = renderSourceBlocks(healed, dialect, false, mentions);
    this.#live = { key, out };
    return out;
  }
}

const cacheKey = (source: string, dialect: Dialect, mentions: MentionPolicy) =>
  `${dialectKey(dialect)}\u0000${mentions}\u0000${source}`;

const LIST_ITEM = /^([-*+]|\d{1,9}[.)])(\s|$)/;

const BULLET_ITEM = /^[-*+](?:[ \t]+\S|[ \t]*$)/;
const THEMATIC_BREAK = /^([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
/** Any fence line, also one that opens right after list markers or quote marks. */
const FENCE_LINE = /^[ \t]*(?:(?:[-*+>]|\d{1,9}[.)])[ \t]*)*(`{3,}|~{3,})/;
/** A line inside a tight list that can only continue the item above it (indented, or plain words). */
const CONTINUATION = /^([ \t]|[A-Za-z(])/;
/** A bullet with nothing after it: under a paragraph it underlines a heading or continues the paragraph. */
const EMPTY_ITEM = /^[-*+][ \t]*$/;
/**
 * Text (after any list markers and quote marks) that surely starts or
 * continues a paragraph, which an unindented line of words then continues
 * lazily. Anything else (a heading, code, a rule, an empty item) is not
 * continued by such a line: it ends the list instead.
 */
const PARAGRAPH_TEXT = /^(?:(?:[-*+]|\d{1,9}[.)])(?: {1,4}|\t)|>[ \t]?)*(?:[A-Za-z(]|`(?!``))/;

/**
 * A group that is one tight bullet list (and maybe a paragraph before it),
 * cut before each item: such items render alone as they do inside the list,
 * one line apart, so a list growing item by item renders only its newest
 * item. Undefined for anything else (a blank line inside would make the list
 * loose; another kind of line might end it or change its numbering; a
 * code fence might end an item or swallow the next one; a line of words
 * after an item that holds no open paragraph ends the list).
 */
function itemRuns(group: string): string[] | undefined {
  const body = group.replace(/\s+$/, '');
  if (/\n[ \t]*\n/.test(body)) return undefined;
  if (body.split('\n').some((line) => FENCE_LINE.test(line))) return undefined;
  const runs: string[] = [];
  let start = 0;
  let pos = 0;
  let marker: string | undefined;
  // Whether the line above left a paragraph open (one that a line of words continues).
  let paragraph = false;
  while (pos < body.length) {
    let nl = body.indexOf('\n', pos);
    if (nl < 0) nl = body.length;
    const line = body.slice(pos, nl);
    const item = BULLET_ITEM.test(line) && !THEMATIC_BREAK.test(line);
    if (item) {
      if (marker === undefined && pos > 0 && EMPTY_ITEM.test(line)) return undefined;
      // The same marker continues the list; another one starts a new list, a block apart.
      if (marker === line[0] && pos > start) {
        runs.push(group.slice(start, pos));
        start = pos;
      }
      marker = line[0];
      paragraph = PARAGRAPH_TEXT.test(line);
    } else if (!CONTINUATION.test(line) || (marker === undefined && pos > 0 && !/^[A-Za-z(]/.test(line))) {
      return undefined;
    } else if (/^\s/.test(line)) {
      // Indented less than 4 columns a line is never code; deeper, only an open paragraph surely takes it.
      const deep = /^[ \t]*/.exec(line)![0].replace(/\t/g, '    ').length >= 4;
      paragraph = (paragraph || !deep) && PARAGRAPH_TEXT.test(line.trimStart());
    } else {
      // Words after a block that is not a paragraph are a paragraph of their own, after the list.
      if (marker !== undefined && !paragraph) return undefined;
      paragraph = true;
    }
    pos = nl + 1;
  }
  runs.push(group.slice(start));
  return runs.length > 1 ? runs : undefined;
}

const indentOf = (line: string) => /^[ \t]*/.exec(line)![0].length;

/** Top-level block groups of `md`; joined they are `md`. */
export function blockGroups(md: string): string[] {
  const groups: string[] = [];
  let fence: ReturnType<typeof stepFence>;
  let groupStart = 0;
  let pos = 0;
  let prevBlank = false;
  while (pos < md.length) {
    let nl = md.indexOf('\n', pos);
    if (nl < 0) nl = md.length;
    const line = md.slice(pos, nl);
    const blank = line.trim() === '';
    // Not before a list item: the whole list decides whether it is loose or tight.
    if (!fence && prevBlank && !blank && pos > groupStart && !/^\s/.test(line) && !LIST_ITEM.test(line)) {
      groups.push(md.slice(groupStart, pos));
      groupStart = pos;
    }
    if (nl < md.length) {
      const next = stepFence(line, fence);
      // A fence opened indented (inside a list item) and "closed" by a fence further left may
      // instead have ended with its item, the left one opening a new block: which, a line scan
      // cannot tell, so nothing after it is cut (a larger group renders the same).
      if (fence && !next && indentOf(line) < fence.indent.length) break;
      fence = next;
    }
    prevBlank = blank && !fence;
    pos = nl + 1;
  }
  if (groupStart < md.length) groups.push(md.slice(groupStart));
  return groups;
}

/**
 * Renders `md` like `renderMarkdown`, reusing the cached rendering of every
 * finished block group; the last group is healed when `partial`.
 */
export function renderIncremental(
  md: string,
  dialect: Dialect,
  partial: boolean,
  cache: RenderCache,
  mentions: MentionPolicy = 'none',
): string {
  const groups = blockGroups(md);
  const out: string[] = [];
  for (let i = 0; i < groups.length; i++) {
    const group = groups[i]!;
    const last = i === groups.length - 1;
    const rendered =
      last && partial ? cache.renderLive(group, dialect, mentions) : cache.render(group, dialect, mentions);
    if (rendered !== '') out.push(rendered);
  }
  return out.join('\n\n').trim();
}
