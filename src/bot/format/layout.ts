/**
 * Splitting by the length that counts: the rendered one. Rendering can grow
 * text (`&` becomes `&amp;`, a table becomes a padded block), so each part is
 * rendered and split smaller until its rendered form fits.
 */
import type { Dialect, MentionPolicy } from '../adapter-contract.js';
import { type RenderCache, renderIncremental } from './incremental.js';
import { renderSource } from './render-source.js';
import { type FenceState, nextSplit, type SplitPart } from './split.js';

/** A split part with its rendered text. */
export interface RenderedPart extends SplitPart {
  rendered: string;
}

/** Options for {@link layoutMarkdown}. */
export interface LayoutOptions {
  dialect: Dialect;
  /** Largest rendered length of one part. */
  maxLength: number;
  /** Start offset in the source (default 0) and the fence open there. */
  from?: number;
  fence?: FenceState | undefined;
  /** The text is still being written: the last part is rendered healed. */
  partial?: boolean;
  /** Reuse renderings of finished block groups (streaming: render only what grew). */
  cache?: RenderCache;
  /** Mentions that stay mentions (default `none`). */
  mentions?: MentionPolicy;
}

const MIN_LIMIT = 32;

/** Renders one part's text in `dialect` (block by block through `cache` when given). */
export function renderPart(
  text: string,
  dialect: Dialect,
  partial: boolean,
  cache?: RenderCache,
  mentions: MentionPolicy = 'none',
): string {
  if (cache) return renderIncremental(text, dialect, partial, cache, mentions);
  return renderSource(text, dialect, partial, mentions);
}

/**
 * Splits `md` from `from` into parts whose rendered text is at most
 * `maxLength` long, rendering each part once (twice or more only when
 * rendering made it too long).
 */
export function layoutMarkdown(md: string, options: LayoutOptions): RenderedPart[] {
  const parts: RenderedPart[] = [];
  let start = options.from ?? 0;
  let fence = options.fence;
  while (start < md.length) {
    let limit = options.maxLength;
    let part: SplitPart;
    let rendered: string;
    for (;;) {
      part = nextSplit(md, start, fence, limit);
      const last = part.end >= md.length;
      const partial = last && options.partial === true;
      rendered = renderPart(part.text, options.dialect, partial, options.cache, options.mentions);
      if (rendered.length <= options.maxLength || limit <= MIN_LIMIT) break;
      limit = Math.max(MIN_LIMIT, Math.floor((limit * options.maxLength * 0.95) / rendered.length));
    }
    parts.push({ ...part, rendered });
    start = part.end;
    fence = part.fenceAtEnd;
  }
  return parts;
}
