/**
 * A loopback fake of the Anthropic Messages API for tests: the real
 * @anthropic-ai/sdk talks to it over HTTP. It answers `POST /v1/messages`
 * with the SSE frames the real API sends (or plain JSON when `stream` is
 * false), scripted per request, and records every request body it parsed.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Usage figures, as the API names them. */
export interface FakeUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

/** What the fake answers to one request. */
export interface ScriptedResponse {
  /** Reply text; an array is sent as one text_delta per chunk. */
  text?: string | string[];
  /** Real-time pause before each chunk (keep it short). */
  chunkDelayMs?: number;
  /** Tool calls after the text; their input is streamed as input_json_delta pieces. */
  toolUse?: Array<{ name: string; input: Record<string, unknown>; id?: string }>;
  /** Usage reported in message_start (input) and message_delta (output). */
  usage?: FakeUsage;
  /** Answer with an HTTP error instead of a stream. */
  error?: { status: number; type: string; message: string; retryAfter?: number };
  /** Send an SSE `event: error` after the text chunks (the SDK does not retry it). */
  midStreamError?: { type: string; message: string };
  /** Destroy the connection after this many text chunks (a dropped connection). */
  dropAfterChunks?: number;
  /** Stop sending after this many text chunks and hold the connection open. */
  stallAfterChunks?: number;
  /** The reply is held open after its text until this settles (lets a test keep a turn running). */
  release?: Promise<unknown>;
  /** stop_reason; default `tool_use` when toolUse is given, else `end_turn`. */
  stopReason?: string;
}

/** A request as the fake saw it. */
export interface RecordedRequest {
  // biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies are inspected freely in tests.
  body: any;
  headers: IncomingMessage['headers'];
  /** True when the client closed the connection before the response ended. */
  closedEarly: boolean;
  /** Text chunks written so far. */
  chunksSent: number;
  finished: boolean;
}

/** The running fake. */
export interface FakeAnthropic {
  /** Base URL for `new Anthropic({ baseURL })`. */
  url: string;
  /** Parsed bodies of every request, in arrival order (retries included). */
  // biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies.
  requests: any[];
  /** Every request with its connection state. */
  log: RecordedRequest[];
  /** Scripts the next requests, one response each. */
  enqueue(...responses: ScriptedResponse[]): void;
  /** What to answer when nothing is queued; default echoes "You said: <last user text>". */
  // biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies.
  setDefault(fn: (body: any) => ScriptedResponse): void;
  /** Forgets queued scripts, recorded requests and a custom default. */
  reset(): void;
  /** Resolves once `predicate` holds, checked after every request, chunk and close. */
  waitFor(predicate: () => boolean): Promise<void>;
  close(): Promise<void>;
}

// biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies.
function lastUserText(body: any): string {
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== 'user') continue;
    if (typeof m.content === 'string') return m.content;
    const texts = (m.content as Array<{ type: string; text?: string }>)
      .filter((b) => b.type === 'text')
      .map((b) => b.text ?? '');
    if (texts.length > 0) return texts[texts.length - 1] ?? '';
  }
  return '';
}

// biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies.
function estimateInputTokens(body: any): number {
  return Math.max(1, Math.ceil(JSON.stringify(body?.messages ?? []).length / 4));
}

const wait = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Starts the fake on 127.0.0.1 with a random port. */
export async function startFakeAnthropic(): Promise<FakeAnthropic> {
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

  const fake: FakeAnthropic = {
    url: '',
    requests: [],
    log: [],
    enqueue: (...responses) => queue.push(...responses),
    setDefault: (fn) => {
      fallback = fn;
    },
    reset: () => {
      queue.length = 0;
      fake.requests.length = 0;
      fake.log.length = 0;
      fallback = echo;
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

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || !req.url?.startsWith('/v1/messages')) {
      sendError(res, 404, 'not_found_error', `No route ${req.method} ${req.url}`);
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
    const validation = validate(body);
    if (validation) {
      sendError(res, 400, 'invalid_request_error', validation);
      entry.finished = true;
      return;
    }
    if (body.stream === true) await streamResponse(res, body, script, entry);
    else sendJson(res, body, script, entry);
  }

  function textChunks(script: ScriptedResponse): string[] {
    if (script.text === undefined) return [];
    return Array.isArray(script.text) ? script.text : [script.text];
  }

  // biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies.
  function usageOf(body: any, script: ScriptedResponse, outputChars: number): Required<FakeUsage> {
    return {
      input_tokens: script.usage?.input_tokens ?? estimateInputTokens(body),
      output_tokens: script.usage?.output_tokens ?? Math.max(1, Math.ceil(outputChars / 4)),
      cache_read_input_tokens: script.usage?.cache_read_input_tokens ?? 0,
      cache_creation_input_tokens: script.usage?.cache_creation_input_tokens ?? 0,
    };
  }

  async function streamResponse(
    res: ServerResponse,
    // biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies.
    body: any,
    script: ScriptedResponse,
    entry: RecordedRequest,
  ): Promise<void> {
    const texts = textChunks(script);
    const tools = (script.toolUse ?? []).map((t) => ({ ...t, id: t.id ?? `toolu_fake_${++toolSeq}` }));
    const usage = usageOf(body, script, texts.join('').length);
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
        usage: {
          input_tokens: usage.input_tokens,
          output_tokens: 1,
          cache_read_input_tokens: usage.cache_read_input_tokens,
          cache_creation_input_tokens: usage.cache_creation_input_tokens,
        },
      },
    });
    let index = 0;
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
    for (const tool of tools) {
      send('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: tool.id, name: tool.name, input: {} },
      });
      const json = JSON.stringify(tool.input);
      const half = Math.ceil(json.length / 2);
      for (const piece of [json.slice(0, half), json.slice(half)]) {
        if (script.chunkDelayMs) await wait(script.chunkDelayMs);
        if (res.destroyed) return;
        send('content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: piece },
        });
      }
      send('content_block_stop', { type: 'content_block_stop', index });
      index++;
    }
    send('message_delta', {
      type: 'message_delta',
      delta: {
        stop_reason: script.stopReason ?? (tools.length > 0 ? 'tool_use' : 'end_turn'),
        stop_sequence: null,
      },
      usage: { output_tokens: usage.output_tokens },
    });
    send('message_stop', { type: 'message_stop' });
    entry.finished = true;
    res.end();
    notify();
  }

  // biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies.
  function sendJson(res: ServerResponse, body: any, script: ScriptedResponse, entry: RecordedRequest): void {
    const text = textChunks(script).join('');
    const tools = (script.toolUse ?? []).map((t) => ({ ...t, id: t.id ?? `toolu_fake_${++toolSeq}` }));
    const content = [
      ...(text ? [{ type: 'text', text }] : []),
      ...tools.map((t) => ({ type: 'tool_use', id: t.id, name: t.name, input: t.input })),
    ];
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
        usage: usageOf(body, script, text.length),
      }),
    );
    entry.finished = true;
    notify();
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

/**
 * The checks the real API makes that a session could get wrong: roles
 * alternate, the first message is from the user, no empty text, every
 * tool_use is answered by a tool_result in the next message (results first),
 * and tool blocks require tool definitions.
 */
// biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies.
function validate(body: any): string | undefined {
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
    const uses = blocks
      .filter((b: { type: string }) => b.type === 'tool_use')
      .map((b: { id: string }) => b.id);
    if (uses.length > 0) {
      const next = messages[i + 1];
      if (!next) {
        if (i === messages.length - 1)
          return `messages.${i}: tool_use ids were found without tool_result blocks`;
        continue;
      }
      const nextBlocks: Array<{ type: string; tool_use_id?: string }> =
        typeof next.content === 'string' ? [] : next.content;
      const results = nextBlocks.filter((b) => b.type === 'tool_result');
      if (nextBlocks.slice(0, results.length).some((b) => b.type !== 'tool_result'))
        return `messages.${i + 1}: tool_result blocks must come first`;
      for (const id of uses) {
        if (!results.some((r) => r.tool_use_id === id))
          return `messages.${i}: tool_use ids were found without tool_result blocks immediately after: ${id}`;
      }
    }
  }
  if (usesTools && !(Array.isArray(body.tools) && body.tools.length > 0))
    return 'Requests which include tool_use or tool_result blocks must define tools.';
  return undefined;
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
