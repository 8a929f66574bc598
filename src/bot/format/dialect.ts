/**
 * What a platform's dialect is made of: the one file an adapter imports to
 * define its own (`adapters/<id>/markdown.ts`) besides the adapter contract.
 * The {@link Dialect} contract with its parts, the core's platform-neutral
 * dialects, and the helpers several markups share (escapers, code fences,
 * safe link targets, the Markdown markup itself).
 *
 * @example
 * import { type Dialect, markdownSyntax } from '../../src/bot/format/dialect.js';
 *
 * export const chatMarkdown: Dialect = {
 *   name: 'chat-markdown',
 *   syntax: markdownSyntax({ headingMax: 3, keepsTables: false }),
 *   mentions: { user: /<@\d+>/ },
 * };
 */
export type { Dialect, MentionPolicy } from '../adapter-contract.js';
export { markdown, plain } from './dialects.js';
export { isSafeLinkTarget } from './links.js';
export type { MentionRules, RawMarkdownRules } from './mentions.js';
export {
  escapeHtml,
  escapeHtmlAttribute,
  escapeMarkdown,
  fenceFor,
  type MarkdownSyntaxOptions,
  markdownInlineCode,
  markdownSyntax,
  plainSyntax,
  prefixLines,
  type Syntax,
} from './syntax.js';
