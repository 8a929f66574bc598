/**
 * Web search and web fetch: server tools the Messages API runs itself
 * (Web search tool and Web fetch tool pages of platform.claude.com/docs).
 * They are declared once per conversation, in the API's own shape, with the
 * deployment's domain list and per-request limit; the API sends back
 * `server_tool_use` and `web_search_tool_result` / `web_fetch_tool_result`
 * blocks, which go back to it as received.
 *
 * What web fetch can reach (Web fetch tool page): only URLs already in the
 * conversation — given by a person, or found by an earlier search or fetch.
 * The model cannot make up a URL, so it cannot send what it read elsewhere
 * to a page of its choosing; a URL it was not given fails with
 * `url_not_in_prior_context`. Pages behind a login, on a private network or
 * drawn by JavaScript are out of its reach.
 */
import type { ToolDefinition } from '../vocabulary.js';
import type { ModelInfo } from './models.js';

/** The web settings of a deployment (SWITCHBOARD_WEB_*). */
export interface WebSettings {
  /** Offer web search (SWITCHBOARD_WEB_SEARCH, default on). */
  search: boolean;
  /** Offer web fetch (SWITCHBOARD_WEB_FETCH, default on). */
  fetch: boolean;
  /** Uses of each tool per model request (`max_uses`, SWITCHBOARD_WEB_MAX_USES, default 5). */
  maxUses: number;
  /** Only these domains (`allowed_domains`); exclusive with `blockedDomains`, as in the API. */
  allowedDomains?: readonly string[];
  /** Never these domains (`blocked_domains`). */
  blockedDomains?: readonly string[];
}

/** The web settings when none are given: both tools on, five uses each per request. */
export const DEFAULT_WEB_SETTINGS: WebSettings = { search: true, fetch: true, maxUses: 5 };

/** The names the API gives the two tools (and their `server_tool_use` blocks). */
export const WEB_SEARCH = 'web_search';
export const WEB_FETCH = 'web_fetch';

/** Pricing page: web search costs $10 per 1,000 searches, on top of the tokens; fetches cost tokens only. */
export const WEB_SEARCH_USD_PER_1000 = 10;

/**
 * The web tools `model` gets under `settings`, as tool definitions whose
 * `server` object is sent as is. A model without a tool (the registry's
 * `webTools`) does not get it; a model the registry does not know gets none.
 */
export function webToolDefinitions(
  settings: WebSettings,
  model: Pick<ModelInfo, 'webTools'>,
): ToolDefinition[] {
  const out: ToolDefinition[] = [];
  const domains = {
    ...(settings.allowedDomains?.length ? { allowed_domains: [...settings.allowedDomains] } : {}),
    ...(settings.blockedDomains?.length ? { blocked_domains: [...settings.blockedDomains] } : {}),
  };
  if (settings.search && model.webTools.search) {
    out.push(
      serverTool(WEB_SEARCH, 'Searches the web (run by the API).', {
        type: model.webTools.search,
        name: WEB_SEARCH,
        max_uses: settings.maxUses,
        ...domains,
      }),
    );
  }
  if (settings.fetch && model.webTools.fetch) {
    out.push(
      serverTool(WEB_FETCH, 'Reads a web page or PDF whose URL is in the conversation (run by the API).', {
        type: model.webTools.fetch,
        name: WEB_FETCH,
        max_uses: settings.maxUses,
        ...domains,
        // Web fetch tool page: citations are optional for fetched pages; on, so the reply can link them.
        citations: { enabled: true },
      }),
    );
  }
  return out;
}

function serverTool(name: string, description: string, server: Record<string, unknown>): ToolDefinition {
  return { name, description, inputSchema: {}, server };
}

/** Whether `tools` hold a web tool (the system prompt then warns about fetched pages). */
export function hasWebTools(tools: readonly Pick<ToolDefinition, 'name' | 'server'>[]): boolean {
  return tools.some((t) => t.server !== undefined && (t.name === WEB_SEARCH || t.name === WEB_FETCH));
}
