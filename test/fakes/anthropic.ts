/**
 * A loopback fake of the Anthropic Messages API for tests: the real
 * @anthropic-ai/sdk talks to it over HTTP. It answers `POST /v1/messages`
 * (and the token-counting endpoint, `POST /v1/messages/count_tokens`)
 * with the SSE frames the real API sends (or plain JSON when `stream` is
 * false), scripted per request, and records every request body it parsed.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkBindings, type InputTransformation, prefixOfNew } from './anthropic-binding.js';
import { streamRawBlock, withServerFallback } from './anthropic-blocks.js';
import { type CacheUsage, FakePromptCache } from './anthropic-cache.js';
import {
  fakeWindow,
  MAX_REQUEST_BYTES,
  pausedKey,
  sign,
  type ThinkingLedger,
  validate,
} from './anthropic-rules.js';
import {
  type FakeAnthropic,
  type FakeUsage,
  lastUserText,
  type RecordedRequest,
  type ScriptedResponse,
} from './anthropic-script.js';
import { fakeInputTokens } from './anthropic-tokens.js';
import { undeclaredWebTool, webUsage } from './anthropic-web.js';

export type { FakeAnthropic, FakeUsage, RecordedRequest, ScriptedResponse } from './anthropic-script.js';

const wait = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Starts the fake on 127.0.0.1 with a random port. `now` is the clock the
 * prompt cache's lifetimes run on (a test's VirtualClock); default real time.
 */
export async function startFakeAnthropic(
  options: {
    now?: () => number;
    /**
     * When the calling account was created (YYYY-MM-DD): since 2026-08-31 a
     * thinking block that fails its prefix check is a 400 by default
     * (Prefix checks on thinking blocks page). Default 2026-09-15.
     */
    accountCreated?: string;
  } = {},
): Promise<FakeAnthropic> {
  const accountCreated = options.accountCreated ?? '2026-09-15';
  const cache = new FakePromptCache(options.now ?? Date.now);
  const queue: ScriptedResponse[] = [];
  // biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies.
  const echo = (body: any): ScriptedResponse => ({ text: `You said: ${lastUserText(body)}` });
  // biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies.
  let fallback: (body: any) => ScriptedResponse = echo;
  const waiters = new Set<{ predicate: () => boolean; resolve: () => void }>();
  const notify = () => {
    for (const w of waiters) {
      if (w.predicate()) {
        waiters.delete(w);
        w.resolve();
      }
    }
  };
  let toolSeq = 0;
  let thinkingSeq = 0;
  const ledger: ThinkingLedger = { issued: new Map(), beforeTool: new Map(), paused: new Set() };

  const fake: FakeAnthropic = {
    url: '',
    cache,
    requests: [],
    countRequests: [],
    contextWindow: undefined,
    log: [],
    enqueue: (...responses) => queue.push(...responses),
    setDefault: (fn) => {
      fallback = fn;
    },
    reset: () => {
      queue.length = 0;
      fake.requests.length = 0;
      fake.log.length = 0;
      fake.countRequests.length = 0;
      fake.contextWindow = undefined;
      fallback = echo;
      cache.clear();
    },
    waitFor: (predicate) =>
      predicate()
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            waiters.add({ predicate, resolve });
          }),
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close').catch(() => undefined);
    },
  };

  const server = createServer((req, res) => {
    void handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });

  let requestSeq = 0;
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Errors page: every response carries a unique request-id header, for support requests.
    res.setHeader('request-id', `req_fake${String(++requestSeq).padStart(20, '0')}`);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || !req.url?.startsWith('/v1/messages')) {
      sendError(res, 404, 'not_found_error', `No route ${req.method} ${req.url}`);
      return;
    }
    // PDF support page: "Maximum request size 32MB" (the Messages API answers 413 request_too_large).
    if (chunks.reduce((n, c) => n + c.length, 0) > MAX_REQUEST_BYTES) {
      sendError(res, 413, 'request_too_large', 'Request exceeds the maximum allowed number of bytes.');
      return;
    }
    // biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies.
    let body: any;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      sendError(res, 400, 'invalid_request_error', 'Body is not JSON');
      return;
    }
    const betas = String(req.headers['anthropic-beta'] ?? '');
    if (req.url.startsWith('/v1/messages/count_tokens')) {
      // Token counting page: the same checks as a request, and the input tokens it would use.
      fake.countRequests.push(body);
      const problem = validate(
        { ...body, max_tokens: 1 },
        betas,
        ledger,
        fake.contextWindow ?? Number.MAX_SAFE_INTEGER,
      );
      if (problem) sendError(res, 400, 'invalid_request_error', problem);
      else sendJsonBody(res, { input_tokens: fakeInputTokens(body) });
      return;
    }
    const entry: RecordedRequest = {
      body,
      headers: req.headers,
      closedEarly: false,
      chunksSent: 0,
      finished: false,
    };
    fake.requests.push(body);
    fake.log.push(entry);
    res.on('close', () => {
      if (!entry.finished) entry.closedEarly = true;
      notify();
    });
    notify();
    // What the model sees: the client's body less the thinking blocks their bindings remove.
    const organization = String(req.headers['x-api-key'] ?? req.headers.authorization ?? '');
    const seen = structuredClone(body);
    const binding = queue[0]?.error
      ? { transformations: [] }
      : checkBindings(seen, betas, ledger.issued, organization, accountCreated);
    // A scripted error answers first; a request the API would reject consumes no scripted reply.
    const validation =
      'error' in binding
        ? binding.error
        : queue[0]?.error
          ? undefined
          : validate(seen, betas, ledger, fake.contextWindow ?? fakeWindow(seen.model));
    if (validation) {
      sendError(res, 400, 'invalid_request_error', validation);
      entry.finished = true;
      return;
    }
    const script = queue.shift() ?? fallback(body);
    if (script.error) {
      const retry = script.error.retryAfter ?? 0.01;
      sendError(res, script.error.status, script.error.type, script.error.message, {
        'retry-after': String(retry),
        'retry-after-ms': String(Math.round(retry * 1000)),
      });
      entry.finished = true;
      return;
    }
    const undeclared = undeclaredWebTool(seen, script.blocks ?? []);
    if (undeclared) {
      sendError(res, 400, 'invalid_request_error', undeclared);
      entry.finished = true;
      return;
    }
    const cached = cache.account(seen);
    if ('error' in cached) {
      sendError(res, 400, 'invalid_request_error', cached.error);
      entry.finished = true;
      return;
    }
    const transformations = 'transformations' in binding ? binding.transformations : [];
    entry.inputTransformations = transformations;
    const issue = { organization, transformations };
    if (body.stream === true)
      await streamResponse(res, seen, withServerFallback(script, seen, betas), entry, cached, issue);
    else sendJson(res, seen, script, entry, cached);
  }

  function textChunks(script: ScriptedResponse): string[] {
    if (script.text === undefined) return [];
    return Array.isArray(script.text) ? script.text : [script.text];
  }

  function usageOf(
    // biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies.
    body: any,
    script: ScriptedResponse,
    outputChars: number,
    cached: CacheUsage,
  ): Required<FakeUsage> & Pick<CacheUsage, 'cache_creation'> {
    const output_tokens = script.usage?.output_tokens ?? Math.max(1, Math.ceil(outputChars / 4));
    // A script that states input usage speaks for the whole prompt; otherwise the cache accounts for it.
    if (script.usage?.input_tokens === undefined) return { ...cached, output_tokens };
    const scripted = {
      input_tokens: script.usage.input_tokens ?? fakeInputTokens(body),
      cache_read_input_tokens: script.usage.cache_read_input_tokens ?? 0,
      cache_creation_input_tokens: script.usage.cache_creation_input_tokens ?? 0,
    };
    const cache_creation = {
      ephemeral_5m_input_tokens: scripted.cache_creation_input_tokens,
      ephemeral_1h_input_tokens: 0,
    };
    return { ...scripted, output_tokens, cache_creation };
  }

  async function streamResponse(
    res: ServerResponse,
    // biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies.
    body: any,
    script: ScriptedResponse,
    entry: RecordedRequest,
    cached: CacheUsage,
    issue: { organization: string; transformations: InputTransformation[] },
  ): Promise<void> {
    const texts = textChunks(script);
    const tools = (script.toolUse ?? []).map((t) => ({ ...t, id: t.id ?? `toolu_fake_${++toolSeq}` }));
    const usage = usageOf(body, script, texts.join('').length, cached);
    entry.usage = usage;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (event: string, data: unknown) => {
      if (!res.destroyed) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    };
    send('message_start', {
      type: 'message_start',
      message: {
        id: `msg_fake_${fake.requests.length}`,
        type: 'message',
        role: 'assistant',
        model: body.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        // Prefix checks page: every block the bindings removed, or let through, is reported.
        ...(issue.transformations.length > 0 ? { input_transformations: issue.transformations } : {}),
        usage: {
          input_tokens: usage.input_tokens,
          output_tokens: 1,
          cache_read_input_tokens: usage.cache_read_input_tokens,
          cache_creation_input_tokens: usage.cache_creation_input_tokens,
          cache_creation: usage.cache_creation,
        },
      },
    });
    let index = 0;
    const content: unknown[] = [];
    const signatures: string[] = [];
    // Thinking page: the current models default to display `omitted` (empty text, the signature carries it).
    const shown = body.thinking?.display === 'summarized' || body.thinking?.display === 'updates';
    // One whole block: its start, its deltas, its stop.
    const block = (start: unknown, deltas: unknown[]) => {
      send('content_block_start', { type: 'content_block_start', index, content_block: start });
      for (const delta of deltas) send('content_block_delta', { type: 'content_block_delta', index, delta });
      send('content_block_stop', { type: 'content_block_stop', index });
      index++;
    };
    for (const [n, raw] of (script.blocks ?? []).entries()) {
      if (script.hold && n === script.hold.after) await script.hold.until;
      streamRawBlock(send, index++, raw);
      content.push(raw);
    }
    for (const thought of script.thinking ?? []) {
      const signature = sign(body.model, thought, ++thinkingSeq);
      const visible = shown ? thought : '';
      ledger.issued.set(signature, {
        model: body.model,
        thinking: visible,
        prefix: prefixOfNew(body, content),
        organization: issue.organization,
      });
      signatures.push(signature);
      content.push({ type: 'thinking', thinking: visible, signature });
      block({ type: 'thinking', thinking: '', signature: '' }, [
        ...(visible ? [{ type: 'thinking_delta', thinking: visible }] : []),
        { type: 'signature_delta', signature },
      ]);
    }
    if (script.redactedThinking) {
      const data = `redacted-${++thinkingSeq}`;
      content.push({ type: 'redacted_thinking', data });
      block({ type: 'redacted_thinking', data }, []);
    }
    if (texts.length > 0) {
      send('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'text', text: '' },
      });
      for (const chunk of texts) {
        if (script.dropAfterChunks !== undefined && entry.chunksSent >= script.dropAfterChunks) {
          // Let what was written reach the client first: the drop is mid-reply, not before it.
          await new Promise<void>((resolve) => res.write(': dropping\n\n', () => resolve()));
          res.socket?.destroy();
          notify();
          return;
        }
        if (script.stallAfterChunks !== undefined && entry.chunksSent >= script.stallAfterChunks) {
          notify();
          return; // hold the connection open: the client has to give up
        }
        if (script.chunkDelayMs) await wait(script.chunkDelayMs);
        if (res.destroyed) return;
        send('content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'text_delta', text: chunk },
        });
        entry.chunksSent++;
        notify();
      }
      if (script.stallAfterChunks !== undefined && entry.chunksSent >= script.stallAfterChunks) {
        notify();
        return;
      }
      send('content_block_stop', { type: 'content_block_stop', index });
      content.push({ type: 'text', text: texts.join('') });
      index++;
    }
    if (script.release) {
      await script.release.catch(() => undefined);
      if (res.destroyed) return;
    }
    if (script.midStreamError) {
      send('error', { type: 'error', error: script.midStreamError });
      entry.finished = true;
      res.end();
      return;
    }
    for (const [n, tool] of tools.entries()) {
      ledger.beforeTool.set(tool.id, signatures);
      send('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: tool.id, name: tool.name, input: {} },
      });
      const json = JSON.stringify(tool.input);
      const half = Math.ceil(json.length / 2);
      const cut = script.cutToolInput && n === tools.length - 1;
      for (const piece of cut ? [json.slice(0, half)] : [json.slice(0, half), json.slice(half)]) {
        if (script.chunkDelayMs) await wait(script.chunkDelayMs);
        if (res.destroyed) return;
        send('content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: piece },
        });
      }
      if (cut) break; // the output limit struck inside the input: the block never closes
      content.push({ type: 'tool_use', id: tool.id, name: tool.name, input: tool.input });
      send('content_block_stop', { type: 'content_block_stop', index });
      index++;
    }
    const stopReason =
      script.stopReason ?? (script.cutToolInput ? 'max_tokens' : tools.length > 0 ? 'tool_use' : 'end_turn');
    if (stopReason === 'pause_turn') {
      // A response to a paused turn continues its last message: paused again, the two come back as one.
      const last = body.messages.at(-1);
      const before = last?.role === 'assistant' && Array.isArray(last.content) ? last.content : [];
      ledger.paused.add(pausedKey([...before, ...content]));
    }
    send('message_delta', {
      type: 'message_delta',
      delta: {
        stop_reason: stopReason,
        stop_sequence: null,
        ...(script.refusal ? { stop_details: { type: 'refusal', ...script.refusal } } : {}),
      },
      // Web search tool page: the searches (and fetches) of the request, in the final usage.
      usage: { output_tokens: usage.output_tokens, ...webServerUsage(script, entry) },
    });
    send('message_stop', { type: 'message_stop' });
    entry.finished = true;
    res.end();
    notify();
  }

  /** `usage.server_tool_use` for the scripted blocks, kept with the recorded request too. */
  function webServerUsage(script: ScriptedResponse, entry: RecordedRequest) {
    const server_tool_use = webUsage(script.blocks ?? []);
    if (!server_tool_use) return {};
    entry.usage = { ...entry.usage, server_tool_use };
    return { server_tool_use };
  }

  function sendJson(
    res: ServerResponse,
    // biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies.
    body: any,
    script: ScriptedResponse,
    entry: RecordedRequest,
    cached: CacheUsage,
  ): void {
    const text = textChunks(script).join('');
    const tools = (script.toolUse ?? []).map((t) => ({ ...t, id: t.id ?? `toolu_fake_${++toolSeq}` }));
    const content = [
      ...(text ? [{ type: 'text', text }] : []),
      ...tools.map((t) => ({ type: 'tool_use', id: t.id, name: t.name, input: t.input })),
    ];
    entry.usage = usageOf(body, script, text.length, cached);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: `msg_fake_${fake.requests.length}`,
        type: 'message',
        role: 'assistant',
        model: body.model,
        content,
        stop_reason: script.stopReason ?? (tools.length > 0 ? 'tool_use' : 'end_turn'),
        stop_sequence: null,
        usage: entry.usage,
      }),
    );
    entry.finished = true;
    notify();
  }

  function sendJsonBody(res: ServerResponse, value: unknown): void {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  }

  function sendError(
    res: ServerResponse,
    status: number,
    type: string,
    message: string,
    headers: Record<string, string> = {},
  ): void {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify({ type: 'error', error: { type, message } }));
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

/** Tool results sent back to the model (what it saw of each tool call), in order, as text. */
// biome-ignore lint/suspicious/noExplicitAny: parsed request bodies.
export function toolResults(requests: any[]): Array<{ text: string; isError: boolean }> {
  const out: Array<{ text: string; isError: boolean }> = [];
  for (const body of requests) {
    const last = body.messages.at(-1);
    if (typeof last.content === 'string') continue;
    for (const block of last.content) {
      if (block.type !== 'tool_result') continue;
      const text =
        typeof block.content === 'string'
          ? block.content
          : (block.content ?? []).map((c: { text?: string }) => c.text ?? '').join('');
      out.push({ text, isError: block.is_error === true });
    }
  }
  return out;
}
