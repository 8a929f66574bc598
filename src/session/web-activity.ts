/**
 * The API's web tools as the chat sees them: a `server_tool_use` block
 * becomes a tool line (`🔎 Searching: <query>`, `🌐 Reading: <host>`), its
 * result ends that line, and a result that is an error becomes a sentence
 * saying what went wrong (Web search tool and Web fetch tool pages: the
 * errors come back as a result block of type `*_tool_result_error` with an
 * `error_code`, in a response that otherwise succeeds).
 */
import { WEB_FETCH, WEB_SEARCH } from '../provider/web-tools.js';
import type { ApiBlock, ToolEndEvent, ToolStartEvent } from './types.js';

/** Longest query or host shown on the status line. */
const SHOWN = 120;

const SEARCH_ERRORS: Record<string, string> = {
  too_many_requests: 'the search service is rate-limited right now; try again in a minute',
  max_uses_exceeded: 'the limit of searches per request was reached (SWITCHBOARD_WEB_MAX_USES)',
  unavailable: 'the search service is unavailable right now; try again later',
  query_too_long: 'the query was too long',
  invalid_tool_input: 'the query was not valid',
  request_too_large: 'the request was too large',
};

const FETCH_ERRORS: Record<string, string> = {
  url_not_in_prior_context:
    'it reads only links already in the conversation; paste the link you want it to read',
  url_not_allowed: 'that domain is not allowed here (SWITCHBOARD_WEB_ALLOWED_DOMAINS / _BLOCKED_DOMAINS)',
  url_not_accessible: 'the page could not be reached',
  url_too_long: 'the link was too long',
  unsupported_content_type: 'that kind of content cannot be read',
  content_too_large: 'the page was too large',
  too_many_requests: 'the fetch service is rate-limited right now; try again in a minute',
  max_uses_exceeded: 'the limit of pages per request was reached (SWITCHBOARD_WEB_MAX_USES)',
  unavailable: 'the fetch service is unavailable right now; try again later',
  invalid_tool_input: 'the link was not valid',
};

/** What ending a web tool line gives the chat. */
export interface WebEnd {
  event: ToolEndEvent;
  /** A sentence for the chat when the search or fetch failed. */
  problem?: string;
}

/** The web tool calls of one turn, from their start to their result. */
export class WebActivity {
  readonly #open = new Map<string, ToolStartEvent>();

  /** The tool line of a `server_tool_use` block of a web tool, or undefined for any other block. */
  start(block: ApiBlock): ToolStartEvent | undefined {
    if (block.type !== 'server_tool_use' || typeof block.id !== 'string') return undefined;
    const input = (block.input ?? {}) as Record<string, unknown>;
    let summary: string;
    if (block.name === WEB_SEARCH) summary = `🔎 Searching: ${oneLine(input.query) || 'the web'}`;
    else if (block.name === WEB_FETCH) summary = `🌐 Reading: ${hostOf(input.url)}`;
    else return undefined;
    const event: ToolStartEvent = { id: block.id, name: block.name, summary, server: true };
    this.#open.set(block.id, event);
    return event;
  }

  /** The end of a started line, for a web search or fetch result block; undefined for other blocks. */
  end(block: ApiBlock): WebEnd | undefined {
    if (block.type !== 'web_search_tool_result' && block.type !== 'web_fetch_tool_result') return undefined;
    const started = typeof block.tool_use_id === 'string' ? this.#open.get(block.tool_use_id) : undefined;
    if (!started) return undefined;
    this.#open.delete(started.id);
    const content = block.content as { type?: unknown; error_code?: unknown } | undefined;
    const failed =
      content?.type === 'web_search_tool_result_error' || content?.type === 'web_fetch_tool_result_error';
    const event: ToolEndEvent = { ...started, status: failed ? 'error' : 'ok' };
    if (!failed) return { event };
    const code = String(content?.error_code ?? 'unavailable');
    const search = block.type === 'web_search_tool_result';
    const reason =
      (search ? SEARCH_ERRORS[code] : FETCH_ERRORS[code]) ?? `the service answered ${oneLine(code)}`;
    const what = search ? 'Web search' : 'Reading the page';
    return { event, problem: `${what} failed: ${reason}.` };
  }
}

/** A query on one line, cut to fit the status line. */
function oneLine(value: unknown): string {
  if (typeof value !== 'string') return '';
  const line = value.replace(/\s+/g, ' ').trim();
  return line.length > SHOWN ? `${line.slice(0, SHOWN - 1)}…` : line;
}

/** The host of a URL (the page itself may be long or say anything). */
function hostOf(url: unknown): string {
  if (typeof url !== 'string') return 'a page';
  try {
    return oneLine(new URL(url).host) || 'a page';
  } catch {
    return 'a page';
  }
}
