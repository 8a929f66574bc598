/**
 * The checks the fake Messages API makes before answering, as the real API
 * makes them. Each rule cites the documentation page it comes from
 * (platform.claude.com/docs, as of 2026-12-01).
 */
import { createHmac } from 'node:crypto';
import { imageSize } from 'image-size';
import type { IssuedThinking } from './anthropic-binding.js';
import { features } from './anthropic-features.js';
import { fakeInputTokens, fakePdfPages } from './anthropic-tokens.js';
import { webToolProblem } from './anthropic-web.js';

/** The models that reject the old settings (Sonnet 5.5 migration guide; same rules on Opus 5.5, Haiku 5.5, Fable 5.x). */
export function isStrictModel(model: string): boolean {
  return /^claude-(sonnet-5-5|opus-5-5|haiku-5-5|fable-5|mythos-5)/.test(model);
}

/** Context window per model (models overview): 1M for the 5.x line and the 4.6+ models, else 200K. */
export function fakeWindow(model: string): number {
  return /^claude-(sonnet-5|opus-5|haiku-5-5|fable|mythos|opus-4-[678]|sonnet-4-6)/.test(model)
    ? 1_000_000
    : 200_000;
}

/** Thinking blocks the fake handed out, by signature: who wrote them and what text they carry. */
export interface ThinkingLedger {
  issued: Map<string, IssuedThinking>;
  /** tool_use id -> signatures of the thinking blocks that came before it in the same response. */
  beforeTool: Map<string, string[]>;
  /** JSON of assistant contents that ended with `pause_turn`: sending them back last is allowed. */
  paused: Set<string>;
}

/** A signature bound to the model and the full thinking text (Thinking page: blocks are tied to their model). */
export function sign(model: string, thinking: string, seq: number): string {
  return createHmac('sha256', 'fake-thinking-key').update(`${model}\n${seq}\n${thinking}`).digest('base64');
}

const MAX_IMAGE_BASE64 = 5 * 1024 * 1024; // Vision page: 5 MB per image (API)
/** PDF support page: "Maximum request size 32MB", all content included. */
export const MAX_REQUEST_BYTES = 32 * 1024 * 1024;
/** PDF support page: "Maximum pages per request 100", over every PDF of the request. */
const MAX_PDF_PAGES = 100;
const MAX_IMAGE_EDGE = 8000; // Vision page: 8000 × 8000 px

// biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies.
type Body = any;
// biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies.
type Block = any;

/** The 400 message for `body`, or undefined when the real API would take it. */
export function validate(
  body: Body,
  betas: string,
  ledger: ThinkingLedger,
  window?: number,
): string | undefined {
  return (
    basics(body) ??
    settings(body, betas) ??
    features(body, betas) ??
    images(body) ??
    documents(body) ??
    thinking(body, ledger) ??
    prefill(body, ledger) ??
    tooLong(body, window ?? fakeWindow(body.model))
  );
}

/** Messages API reference: roles alternate from a user message, no empty text, tool_use answered first thing next. */
function basics(body: Body): string | undefined {
  if (typeof body.model !== 'string' || !body.model) return 'model: field required';
  if (typeof body.max_tokens !== 'number') return 'max_tokens: field required';
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) return 'messages: at least one message is required';
  if (messages[0].role !== 'user') return 'messages: first message must use the "user" role';
  let usesTools = false;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (i > 0 && messages[i - 1].role === m.role) return `messages.${i}: roles must alternate`;
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    if (!Array.isArray(blocks) || blocks.length === 0) return `messages.${i}: content must not be empty`;
    for (const b of blocks) {
      if (b.type === 'text' && !b.text) return `messages.${i}: text content blocks must be non-empty`;
      if (b.type === 'tool_use' || b.type === 'tool_result') usesTools = true;
    }
    const uses = blocks.filter((b: Block) => b.type === 'tool_use').map((b: Block) => b.id);
    if (uses.length === 0) continue;
    const next = messages[i + 1];
    if (!next) return `messages.${i}: tool_use ids were found without tool_result blocks`;
    const nextBlocks: Block[] = typeof next.content === 'string' ? [] : next.content;
    const results = nextBlocks.filter((b) => b.type === 'tool_result');
    if (nextBlocks.slice(0, results.length).some((b) => b.type !== 'tool_result'))
      return `messages.${i + 1}: tool_result blocks must come first`;
    for (const id of uses) {
      if (!results.some((r) => r.tool_use_id === id))
        return `messages.${i}: tool_use ids were found without tool_result blocks immediately after: ${id}`;
    }
  }
  if (usesTools && !(Array.isArray(body.tools) && body.tools.length > 0))
    return 'Requests which include tool_use or tool_result blocks must define tools.';
  return toolRules(body);
}

/**
 * Define tools page: a name matches ^[a-zA-Z0-9_-]{1,64}$ and is unique; an
 * input_schema is an object schema without a top-level oneOf/allOf/anyOf.
 * Handle tool calls page: a tool_result's content is a string or a list of
 * text and image blocks (documents and search results too, which we never send).
 */
function toolRules(body: Body): string | undefined {
  const names = new Set<string>();
  for (const [i, tool] of (Array.isArray(body.tools) ? body.tools : []).entries()) {
    if (typeof tool.name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(tool.name))
      return `tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`;
    if (names.has(tool.name)) return 'tools: Tool names must be unique.';
    names.add(tool.name);
    // Server tools (web search, web fetch) are declared by their versioned type and take no input_schema.
    if (typeof tool.type === 'string' && tool.type !== 'custom') continue;
    // The API's answer as a user recorded it (perplexityai/perplexity-node issue #11).
    const schema = tool.input_schema ?? {};
    if (['oneOf', 'allOf', 'anyOf'].some((k) => Object.hasOwn(schema, k)))
      return `tools.${i}.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level`;
    if (schema.type !== 'object') return `tools.${i}.custom.input_schema.type: Input should be 'object'`;
  }
  const web = webToolProblem(body);
  if (web) return web;
  for (const [i, m] of body.messages.entries()) {
    if (typeof m.content === 'string') continue;
    for (const [j, b] of m.content.entries()) {
      if (b.type !== 'tool_result' || typeof b.content === 'string' || b.content === undefined) continue;
      if (!Array.isArray(b.content))
        return `messages.${i}.content.${j}.tool_result.content: Input should be a valid list`;
      for (const [k, part] of b.content.entries()) {
        if (!['text', 'image', 'document', 'search_result'].includes(part.type))
          return `messages.${i}.content.${j}.tool_result.content.${k}: Input tag '${part.type}' found using 'type' does not match any of the expected tags`;
        if (part.type === 'text' && !part.text)
          return `messages.${i}.content.${j}.tool_result.content.${k}: text content blocks must be non-empty`;
      }
    }
  }
  return undefined;
}

/** Sonnet 5.5 migration guide: five settings return a 400 on the current models; display `updates` needs its beta. */
function settings(body: Body, betas: string): string | undefined {
  const t = body.thinking;
  if (t?.display === 'updates' && !betas.includes('thinking-display-updates-2026-08-18'))
    return 'thinking.display: "updates" requires the thinking-display-updates-2026-08-18 beta';
  if (!isStrictModel(body.model)) return undefined;
  if (t?.type === 'enabled' || t?.budget_tokens !== undefined)
    return `thinking.type: "enabled" (a thinking budget) is not supported on ${body.model}; use "adaptive" and output_config.effort`;
  if (t?.type === 'disabled') return `thinking.type: "disabled" is not supported on ${body.model}`;
  for (const key of ['temperature', 'top_p', 'top_k'])
    if (body[key] !== undefined) return `${key}: sampling parameters are not supported on ${body.model}`;
  if (body.tool_choice?.type === 'any' || body.tool_choice?.type === 'tool')
    return `tool_choice: forced tool use is not supported on ${body.model}`;
  return undefined;
}

/** Vision page: at most 5 MB of base64 and 8000 × 8000 px per image. */
function images(body: Body): string | undefined {
  for (const [i, m] of body.messages.entries()) {
    if (typeof m.content === 'string') continue;
    // Images inside a tool_result are held to the same limits as any other.
    const nested = m.content.flatMap((b: Block, j: number) =>
      b.type === 'tool_result' && Array.isArray(b.content)
        ? b.content.map((part: Block, k: number) => [`${j}.tool_result.content.${k}`, part])
        : [],
    );
    for (const [j, b] of [...m.content.entries(), ...nested]) {
      if (b.type !== 'image' || b.source?.type !== 'base64') continue;
      const data: string = b.source.data ?? '';
      if (data.length > MAX_IMAGE_BASE64)
        return `messages.${i}.content.${j}.image.source.base64: image exceeds 5 MB maximum: ${data.length} bytes > ${MAX_IMAGE_BASE64} bytes`;
      try {
        const { width = 0, height = 0 } = imageSize(Buffer.from(data.slice(0, 87_384), 'base64'));
        if (width > MAX_IMAGE_EDGE || height > MAX_IMAGE_EDGE)
          return `messages.${i}.content.${j}.image.source.base64: image dimensions exceed max allowed size: ${MAX_IMAGE_EDGE} pixels`;
      } catch {
        return `messages.${i}.content.${j}.image.source.base64: Could not process image`;
      }
    }
  }
  return undefined;
}

/**
 * PDF support page: base64 PDFs in `document` blocks, standard PDFs only (no
 * passwords or encryption), at most 100 pages over the whole request.
 */
function documents(body: Body): string | undefined {
  let pages = 0;
  for (const [i, m] of body.messages.entries()) {
    if (typeof m.content === 'string') continue;
    for (const [j, b] of m.content.entries()) {
      if (b.type !== 'document') continue;
      const where = `messages.${i}.content.${j}`;
      const source = b.source ?? {};
      if (source.type === 'text') continue;
      if (source.type !== 'base64' || source.media_type !== 'application/pdf')
        return `${where}.document.source: expected a base64 source with media_type application/pdf`;
      const pdf = Buffer.from(String(source.data ?? ''), 'base64');
      // A standard PDF starts with its header and ends with %%EOF in its last 1024 bytes (truncated: invalid).
      if (pdf.subarray(0, 5).toString('latin1') !== '%PDF-' || !pdf.subarray(-1024).includes('%%EOF'))
        return `${where}.document.source.base64.data: The PDF specified was not valid.`;
      if (/\/Encrypt(?![A-Za-z])/.test(pdf.toString('latin1')))
        return `${where}.document.source.base64.data: The PDF specified is password protected or encrypted.`;
      pages += fakePdfPages(pdf);
      if (pages > MAX_PDF_PAGES) return `${where}: A maximum of ${MAX_PDF_PAGES} PDF pages may be provided.`;
    }
  }
  return undefined;
}

/**
 * Thinking page: blocks go back unmodified, bound to the model that wrote
 * them; in a tool loop the final assistant message keeps its thinking.
 */
function thinking(body: Body, ledger: ThinkingLedger): string | undefined {
  for (const [i, m] of body.messages.entries()) {
    if (m.role !== 'assistant' || typeof m.content === 'string') continue;
    for (const [j, b] of m.content.entries()) {
      if (b.type !== 'thinking') continue;
      const issued = ledger.issued.get(b.signature);
      if (!issued || issued.model !== body.model)
        return `messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`;
      if (issued.thinking !== b.thinking)
        return `messages.${i}.content.${j}: \`thinking\` or \`redacted_thinking\` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.`;
    }
    const tool = m.content.find((b: Block) => b.type === 'tool_use');
    const expected = tool ? ledger.beforeTool.get(tool.id) : undefined;
    if (!expected || expected.length === 0) continue;
    const sent = m.content.filter((b: Block) => b.type === 'thinking').map((b: Block) => b.signature);
    if (expected.some((sig) => !sent.includes(sig)))
      return `messages.${i}.content.0: Expected \`thinking\` or \`redacted_thinking\`, but found \`${m.content[0]?.type}\`. When thinking is enabled, an assistant message in a tool loop must start with the thinking blocks it was returned with.`;
  }
  return undefined;
}

/** Sonnet 5.5 migration guide: an assistant prefill is a 400, except sending back a paused turn (Stop reasons page). */
function prefill(body: Body, ledger: ThinkingLedger): string | undefined {
  const last = body.messages.at(-1);
  if (last?.role !== 'assistant' || !isStrictModel(body.model)) return undefined;
  if (ledger.paused.has(pausedKey(last.content))) return undefined;
  return `messages: assistant message prefill is not supported on ${body.model}; the last message must be a user message`;
}

/** Context windows page: a request over the model's window is a 400. */
function tooLong(body: Body, window: number): string | undefined {
  const tokens = fakeInputTokens(body);
  return tokens > window ? `prompt is too long: ${tokens} tokens > ${window} maximum` : undefined;
}

/**
 * How a paused turn's content is recognised when it comes back: as sent,
 * less the cache breakpoints a client may have put on it since.
 */
// biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies.
export function pausedKey(content: any): string {
  const blocks = Array.isArray(content) ? content : [content];
  return JSON.stringify(
    blocks.map((b: unknown) => (b && typeof b === 'object' ? { ...b, cache_control: undefined } : b)),
  );
}
