/**
 * The web tools on the fake Messages API: the blocks a scripted reply uses
 * to search and fetch (shapes from the Web search tool and Web fetch tool
 * pages, and from the real responses recorded in
 * test/fixtures/anthropic-recorded: anthropic-web-search-tool.1 and
 * anthropic-web-fetch-tool.1), the rules the API applies to their
 * declarations, and the usage it reports for them.
 */

// biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies and blocks.
type Json = any;

/** Versions of the tools the API knows (SDK types, Web search / Web fetch tool pages). */
const SEARCH_TYPES = ['web_search_20250305', 'web_search_20260209', 'web_search_20260318'];
const FETCH_TYPES = ['web_fetch_20250910', 'web_fetch_20260209', 'web_fetch_20260309', 'web_fetch_20260318'];
/** Dynamic filtering (the versions after the basic ones) needs Claude 4.6 or later, or Mythos. */
const BASIC = new Set(['web_search_20250305', 'web_fetch_20250910']);
const BEFORE_4_6 = /^claude-(opus|sonnet|haiku)-(4-5|4-1|4-0|4-2|3)|^claude-(opus|sonnet)-4-20/;

/**
 * The 400 the API gives for the web tools of `body`, or undefined. Web
 * search tool page: `allowed_domains` and `blocked_domains` cannot be used
 * together; `max_uses` is a positive count; domains carry no scheme.
 */
export function webToolProblem(body: Json): string | undefined {
  for (const [i, tool] of (Array.isArray(body.tools) ? body.tools : []).entries()) {
    const type = String(tool.type ?? '');
    const search = type.startsWith('web_search_');
    const fetch = type.startsWith('web_fetch_');
    if (!search && !fetch) continue;
    if (!(search ? SEARCH_TYPES : FETCH_TYPES).includes(type))
      return `tools.${i}: Input tag '${type}' found using 'type' does not match any of the expected tags`;
    if (tool.name !== (search ? 'web_search' : 'web_fetch'))
      return `tools.${i}.${type}.name: Input should be '${search ? 'web_search' : 'web_fetch'}'`;
    if (!BASIC.has(type) && BEFORE_4_6.test(String(body.model)))
      return `tools.${i}: '${type}' is not supported on ${body.model}; use the basic version`;
    if (tool.allowed_domains && tool.blocked_domains)
      return `tools.${i}.${type}: Only one of allowed_domains and blocked_domains can be provided`;
    for (const domain of [...(tool.allowed_domains ?? []), ...(tool.blocked_domains ?? [])])
      if (/^[a-z]+:\/\//i.test(domain))
        return `tools.${i}.${type}: domains must not include a scheme (got ${domain})`;
    if (tool.max_uses !== undefined && !(Number.isInteger(tool.max_uses) && tool.max_uses > 0))
      return `tools.${i}.${type}.max_uses: Input should be greater than 0`;
  }
  return undefined;
}

/**
 * What a scripted reply's web blocks need from the request: a server tool
 * call of a tool the request did not declare is a broken script (the real
 * model cannot call it), said as a 400 so the test sees it.
 */
export function undeclaredWebTool(body: Json, blocks: readonly Json[]): string | undefined {
  const declared = new Set((body.tools ?? []).map((t: Json) => t.name));
  for (const b of blocks)
    if (b.type === 'server_tool_use' && !declared.has(b.name))
      return `fake: the script calls ${b.name}, which the request does not declare`;
  return undefined;
}

/** `usage.server_tool_use` for the blocks of a reply (as in the recordings, both counts present). */
export function webUsage(blocks: readonly Json[]): Json | undefined {
  const calls = blocks.filter((b) => b.type === 'server_tool_use');
  if (calls.length === 0) return undefined;
  return {
    web_search_requests: calls.filter((b) => b.name === 'web_search').length,
    web_fetch_requests: calls.filter((b) => b.name === 'web_fetch').length,
  };
}

let seq = 0;

/** A search and its results (recorded shape: `web_search_result` items with encrypted content). */
export function searchBlocks(query: string, results: Array<{ url: string; title: string }>): Json[] {
  const id = `srvtoolu_fake_${++seq}`;
  return [
    { type: 'server_tool_use', id, name: 'web_search', input: { query } },
    {
      type: 'web_search_tool_result',
      tool_use_id: id,
      content: results.map((r) => ({
        type: 'web_search_result',
        title: r.title,
        url: r.url,
        encrypted_content: `enc_${Buffer.from(r.url).toString('base64')}`,
        page_age: null,
      })),
    },
  ];
}

/** A fetched page (recorded shape: a `web_fetch_result` holding a document). */
export function fetchBlocks(url: string, title: string, text: string): Json[] {
  const id = `srvtoolu_fake_${++seq}`;
  return [
    { type: 'server_tool_use', id, name: 'web_fetch', input: { url } },
    {
      type: 'web_fetch_tool_result',
      tool_use_id: id,
      content: {
        type: 'web_fetch_result',
        url,
        content: {
          type: 'document',
          source: { type: 'text', media_type: 'text/plain', data: text },
          title,
          citations: { enabled: true },
        },
        retrieved_at: '2026-12-01T12:00:00Z',
      },
    },
  ];
}

/**
 * A search or fetch that failed (Web search / Web fetch tool pages: a result
 * whose content is `<tool>_tool_result_error` with an `error_code`, in a
 * response that is otherwise a success).
 */
export function webErrorBlocks(tool: 'web_search' | 'web_fetch', input: string, errorCode: string): Json[] {
  const id = `srvtoolu_fake_${++seq}`;
  return [
    {
      type: 'server_tool_use',
      id,
      name: tool,
      input: tool === 'web_search' ? { query: input } : { url: input },
    },
    {
      type: `${tool}_tool_result`,
      tool_use_id: id,
      content: { type: `${tool}_tool_result_error`, error_code: errorCode },
    },
  ];
}

/** Text citing a search result (Citations page: `web_search_result_location`). */
export function citedText(text: string, source: { url: string; title: string; quote: string }): Json {
  return {
    type: 'text',
    text,
    citations: [
      {
        type: 'web_search_result_location',
        url: source.url,
        title: source.title,
        encrypted_index: `idx_${Buffer.from(source.url).toString('base64')}`,
        cited_text: source.quote,
      },
    ],
  };
}

/**
 * A reply that searches for `query`, finds `page` and cites it, held after
 * the search (the API still searching) until `release` is called: a chat
 * test sees the status line, then the reply.
 */
export function heldSearch(query: string, page: { url: string; title: string }) {
  let release = () => {};
  const until = new Promise<void>((resolve) => {
    release = resolve;
  });
  const script = {
    blocks: [
      ...searchBlocks(query, [page]),
      citedText('Version 2 shipped.', { ...page, quote: 'Version 2 shipped' }),
    ],
    hold: { after: 2, until },
  };
  return { script, release };
}
