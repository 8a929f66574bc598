/**
 * The two dialects that belong to no platform, and how the renderer asks any
 * dialect for its markup under a mention policy. Every platform's own
 * dialect lives in its adapter's folder; the core knows dialects only
 * through the {@link Dialect} contract.
 */
import type { Dialect, MentionPolicy } from '../adapter-contract.js';
import { mentionSyntax } from './mentions.js';
import { markdownSyntax, plainSyntax, type Syntax } from './syntax.js';

/**
 * CommonMark with GFM tables, every literal escaped: for a platform that
 * renders standard Markdown and has no mention tokens of its own. A native
 * stream carries the model's text as written.
 */
export const markdown: Dialect = {
  name: 'markdown',
  syntax: markdownSyntax(),
  rawMarkdown: { breaks: {}, undecided: [] },
};

/**
 * Text with no markup: for a terminal, and for any chat once a platform has
 * refused a message's formatting (the core resends it plain).
 */
export const plain: Dialect = { name: 'plain', syntax: plainSyntax };

/** Markup per dialect and policy, made once: the renderer asks for it on every render. */
const syntaxes = new WeakMap<Dialect, Map<MentionPolicy, Syntax>>();

/** The markup for `dialect`; `mentions` says which mentions in the text stay mentions. */
export function syntaxFor(dialect: Dialect, mentions: MentionPolicy = 'none'): Syntax {
  let byPolicy = syntaxes.get(dialect);
  if (!byPolicy) {
    byPolicy = new Map();
    syntaxes.set(dialect, byPolicy);
  }
  let syntax = byPolicy.get(mentions);
  if (!syntax) {
    syntax = mentionSyntax(dialect.syntax, dialect.mentions, mentions);
    byPolicy.set(mentions, syntax);
  }
  return syntax;
}

/** Numbers given to dialects for cache keys: two dialects never share one, whatever their names. */
const keys = new WeakMap<Dialect, number>();
let nextKey = 0;

/** A short key for `dialect`, stable for this process: renderings are cached under it. */
export function dialectKey(dialect: Dialect): number {
  let key = keys.get(dialect);
  if (key === undefined) {
    key = nextKey++;
    keys.set(dialect, key);
  }
  return key;
}
