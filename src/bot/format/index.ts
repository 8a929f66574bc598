/**
 * Formatting: the model's Markdown, parsed once per render into an mdast
 * tree and written out in each platform's dialect; splitting long text at
 * readable boundaries without breaking code fences. The dialects are
 * objects (see `Dialect`): the core's `markdown` and `plain` here, each
 * platform's own in its adapter's folder.
 */
import type { Dialect, MentionPolicy } from '../adapter-contract.js';
import { plain } from './dialects.js';
import { renderSource } from './render-source.js';

export { markdown, plain } from './dialects.js';
export { isSafeLinkTarget, markdownLiteral } from './links.js';
export { rawMarkdownText } from './mentions.js';
export { healPartialMarkdown, parseMarkdown } from './parse.js';
export {
  type FenceState,
  fenceStateAt,
  nextSplit,
  type SplitPart,
  splitMarkdown,
  splitMarkdownParts,
} from './split.js';
export { renderStatusLine } from './status.js';

/** Options for {@link renderMarkdown}. */
export interface RenderOptions {
  /**
   * The text is a reply still being written: close an unfinished inline code
   * span, bold or strike and drop a half-typed link before parsing.
   */
  partial?: boolean;
  /** Mentions that stay mentions (default `none`: every mention reaches the chat as text). */
  mentions?: MentionPolicy;
}

/**
 * Renders Markdown in a platform dialect. Streaming-safe: any prefix of a
 * reply renders to balanced markup. Linear in the length of `md`; never
 * throws (text that cannot be formatted comes back as escaped plain text).
 *
 * @example
 * renderMarkdown('**hi** <you>', markdown); // '**hi** \\<you\\>'
 */
export function renderMarkdown(md: string, dialect: Dialect, options: RenderOptions = {}): string {
  return renderSource(md, dialect, options.partial === true, options.mentions);
}

/** The text of `md` without any markup (what a user would read). */
export function toPlainText(md: string): string {
  return renderSource(md, plain, false);
}
export { blockGroups, RenderCache, renderIncremental } from './incremental.js';
export { type LayoutOptions, layoutMarkdown, type RenderedPart, renderPart } from './layout.js';
