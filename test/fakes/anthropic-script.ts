/**
 * What tests script and see on the fake Messages API: the scripted
 * responses, the recorded requests and the fake's handle.
 */
import type { IncomingMessage } from 'node:http';
import type { FakePromptCache } from './anthropic-cache.js';

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
  /**
   * Thinking blocks before the text, each with a signature bound to the
   * model. Their text reaches the client only with display `summarized` or
   * `updates` (Thinking page: the current models default to `omitted`).
   */
  thinking?: string[];
  /** A redacted_thinking block before the text. */
  redactedThinking?: boolean;
  /** The last tool call's input stops halfway and the reply ends with `max_tokens` (no content_block_stop). */
  cutToolInput?: boolean;
  /** With `stopReason: 'refusal'`: the stop_details the API sends. */
  refusal?: { category: string; explanation: string; recommended_model?: string };
  /** With a refusal and `fallbacks: "default"`: what the fallback model answers. */
  fallbackText?: string;
  /**
   * Blocks in the API's shape streamed first, as the API streams them
   * (server tool calls and results, text with citations, compaction…).
   */
  // biome-ignore lint/suspicious/noExplicitAny: blocks in the API's JSON shape.
  blocks?: any[];
  /** The stream waits after the first `after` of `blocks` (a search the API is still running) until `until` settles. */
  hold?: { after: number; until: Promise<unknown> };
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
  /** Thinking blocks the bindings removed or let through (`input_transformations`), once checked. */
  inputTransformations?: Array<{ type: string; path: string; reason: string }>;
  /** The usage the fake reported for this request (cache accounting included), once it answered. */
  usage?: Record<string, unknown>;
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
  /** The prompt cache, on the clock given to `startFakeAnthropic` (see anthropic-cache.ts). */
  cache: FakePromptCache;
  /** Scripts the next requests, one response each. */
  enqueue(...responses: ScriptedResponse[]): void;
  /** What to answer when nothing is queued; default echoes "You said: <last user text>". */
  // biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies.
  setDefault(fn: (body: any) => ScriptedResponse): void;
  /** Forgets queued scripts, recorded requests and a custom default. */
  reset(): void;
  /** Bodies sent to the token-counting endpoint. */
  // biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies.
  countRequests: any[];
  /** Overrides the model's context window for the window check (default from the models overview). */
  contextWindow: number | undefined;
  /** Resolves once `predicate` holds, checked after every request, chunk and close. */
  waitFor(predicate: () => boolean): Promise<void>;
  close(): Promise<void>;
}

/** The last user text of a request body (the default echo answers it). */
// biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies.
export function lastUserText(body: any): string {
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
