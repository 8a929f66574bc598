import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SwitchboardError } from '../../src/errors.js';
import { AnthropicProvider } from '../../src/provider/index.js';
import type { ProviderEvent, ProviderRequest } from '../../src/provider/types.js';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic.js';

const KEY = 'sk-ant-test-key-0123456789';
let fake: FakeAnthropic;

beforeAll(async () => {
  fake = await startFakeAnthropic();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.requests.length = 0;
  fake.log.length = 0;
});

function provider(extra: Partial<ConstructorParameters<typeof AnthropicProvider>[0]> = {}) {
  return new AnthropicProvider({ apiKey: KEY, baseURL: fake.url, ...extra });
}

function request(overrides: Partial<ProviderRequest> = {}): ProviderRequest {
  return {
    model: 'claude-sonnet-4-6',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }],
    tools: [],
    maxTokens: 1024,
    signal: new AbortController().signal,
    ...overrides,
  };
}

async function collect(p: AnthropicProvider, req: ProviderRequest): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = [];
  for await (const e of p.stream(req)) events.push(e);
  return events;
}

async function failure(p: AnthropicProvider, req: ProviderRequest): Promise<SwitchboardError> {
  try {
    await collect(p, req);
  } catch (err) {
    expect(err).toBeInstanceOf(SwitchboardError);
    return err as SwitchboardError;
  }
  throw new Error('expected the stream to fail');
}

describe('AnthropicProvider', () => {
  it('streams text deltas, then message_end with the reported usage', async () => {
    fake.enqueue({
      text: ['Hel', 'lo ', 'there'],
      usage: { input_tokens: 120, output_tokens: 7, cache_read_input_tokens: 30 },
    });
    const events = await collect(provider(), request({ system: 'be brief' }));
    expect(events.filter((e) => e.type === 'text_delta').map((e) => (e as { text: string }).text)).toEqual([
      'Hel',
      'lo ',
      'there',
    ]);
    expect(events.at(-1)).toEqual({
      type: 'message_end',
      stopReason: 'end_turn',
      usage: { inputTokens: 120, outputTokens: 7, cacheReadInputTokens: 30 },
    });
    expect(fake.requests[0]).toMatchObject({
      model: 'claude-sonnet-4-6',
      max_tokens: 1024,
      stream: true,
      system: [{ type: 'text', text: 'be brief', cache_control: { type: 'ephemeral' } }],
    });
  });

  it('yields a tool_use once its streamed JSON input is complete', async () => {
    fake.enqueue({ text: 'Let me look.', toolUse: [{ name: 'Read', input: { path: 'a.txt', limit: 3 } }] });
    const tools = [
      { name: 'Read', description: 'read a file', inputSchema: { properties: { path: { type: 'string' } } } },
    ];
    const events = await collect(provider(), request({ tools }));
    const use = events.find((e) => e.type === 'tool_use');
    expect(use).toMatchObject({ type: 'tool_use', name: 'Read', input: { path: 'a.txt', limit: 3 } });
    // The streamed input shows up as progress (it keeps the idle watchdog quiet) before the call.
    const progress = events.findIndex((e) => e.type === 'progress');
    expect(progress).toBeGreaterThanOrEqual(0);
    expect(progress).toBeLessThan(events.indexOf(use as ProviderEvent));
    expect(events.at(-1)).toMatchObject({ type: 'message_end', stopReason: 'tool_use' });
    expect(fake.requests[0].tools[0]).toEqual({
      name: 'Read',
      description: 'read a file',
      input_schema: { type: 'object', properties: { path: { type: 'string' } } },
      // Caching is on by default: the last tool ends the cached tools prefix.
      cache_control: { type: 'ephemeral' },
    });
  });

  it('converts images, tool results and merges same-role messages for the API', async () => {
    await collect(
      provider(),
      request({
        tools: [{ name: 'Bash', description: 'run', inputSchema: {} }],
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'look' },
              { type: 'image', mediaType: 'image/png', data: 'aGk=' },
            ],
          },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: '' },
              { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } },
            ],
          },
          {
            role: 'user',
            content: [{ type: 'tool_result', toolUseId: 't1', content: 'boom', isError: true }],
          },
          { role: 'user', content: [{ type: 'text', text: 'next' }] },
        ],
      }),
    );
    const sent = fake.requests[0].messages;
    expect(sent).toHaveLength(3);
    expect(sent[0].content[1]).toEqual({
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: 'aGk=' },
      // Two messages back from the newest: where the previous request ended, a cache breakpoint.
      cache_control: { type: 'ephemeral' },
    });
    expect(sent[1].content).toEqual([{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } }]);
    expect(sent[2].content).toEqual([
      { type: 'tool_result', tool_use_id: 't1', content: 'boom', is_error: true },
      { type: 'text', text: 'next', cache_control: { type: 'ephemeral' } },
    ]);
  });

  it('lets the SDK retry a 429 and a 529, then succeeds', async () => {
    fake.enqueue(
      { error: { status: 429, type: 'rate_limit_error', message: 'slow down', retryAfter: 0.01 } },
      { error: { status: 529, type: 'overloaded_error', message: 'Overloaded', retryAfter: 0.01 } },
      { text: 'finally' },
    );
    const events = await collect(provider(), request());
    expect(events[0]).toEqual({ type: 'text_delta', text: 'finally' });
    expect(fake.requests).toHaveLength(3);
  });

  it('maps a 401 to PROVIDER_AUTH naming ANTHROPIC_API_KEY, without the key', async () => {
    fake.enqueue({
      error: { status: 401, type: 'authentication_error', message: `invalid x-api-key ${KEY}` },
    });
    const err = await failure(provider(), request());
    expect(err.code).toBe('PROVIDER_AUTH');
    expect(err.message).toContain('ANTHROPIC_API_KEY was rejected');
    expect(err.message).not.toContain(KEY);
    expect(err.cause).toBeDefined();
  });

  it('maps 429, 529 and a too-long prompt once retries are used up', async () => {
    const p = provider({ maxRetries: 0 });
    fake.enqueue({ error: { status: 429, type: 'rate_limit_error', message: 'slow down', retryAfter: 3 } });
    const limited = await failure(p, request());
    expect(limited.code).toBe('PROVIDER_RATE_LIMITED');
    expect(limited.retryAfterMs).toBe(3000);
    fake.enqueue({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } });
    expect((await failure(p, request())).code).toBe('PROVIDER_OVERLOADED');
    fake.enqueue({
      error: {
        status: 400,
        type: 'invalid_request_error',
        message: 'prompt is too long: 210000 tokens > 200000 maximum',
      },
    });
    const long = await failure(p, request());
    expect(long.code).toBe('PROVIDER_CONTEXT_TOO_LONG');
    expect(long.message).toContain('/compact');
    fake.enqueue({ error: { status: 500, type: 'api_error', message: 'internal' } });
    expect((await failure(p, request())).code).toBe('PROVIDER_ERROR');
  });

  it('turns a mid-stream error event into a clear error (not retried)', async () => {
    fake.enqueue({ text: ['partial '], midStreamError: { type: 'overloaded_error', message: 'Overloaded' } });
    const err = await failure(provider(), request());
    expect(err.code).toBe('PROVIDER_OVERLOADED');
    fake.enqueue({
      text: ['partial '],
      midStreamError: { type: 'api_error', message: 'Internal server error' },
    });
    const other = await failure(provider(), request());
    expect(other.code).toBe('PROVIDER_ERROR');
    expect(other.message).toContain('middle of the reply');
    expect(fake.requests).toHaveLength(2);
  });

  it('a connection dropped mid-reply is a PROVIDER_ERROR, not a silent short answer', async () => {
    fake.enqueue({ text: ['one ', 'two ', 'three'], dropAfterChunks: 2 });
    const seen: string[] = [];
    const err = await (async () => {
      try {
        for await (const e of provider().stream(request())) if (e.type === 'text_delta') seen.push(e.text);
      } catch (e) {
        return e as SwitchboardError;
      }
      throw new Error('expected a failure');
    })();
    expect(seen).toEqual(['one ', 'two ']);
    expect(err).toBeInstanceOf(SwitchboardError);
    expect(err.code).toBe('PROVIDER_ERROR');
    expect(err.message).toContain('broke off during the reply');
  });

  it('aborting the signal closes the HTTP stream and throws ABORTED', async () => {
    fake.enqueue({ text: ['one ', 'two ', 'three'], stallAfterChunks: 1 });
    const controller = new AbortController();
    const seen: ProviderEvent[] = [];
    const run = (async () => {
      for await (const e of provider().stream(request({ signal: controller.signal }))) {
        seen.push(e);
        controller.abort();
      }
    })();
    await expect(run).rejects.toMatchObject({ code: 'ABORTED' });
    expect(seen).toEqual([{ type: 'text_delta', text: 'one ' }]);
    await fake.waitFor(() => fake.log[0]?.closedEarly === true);
  });

  it('the fake also answers non-streaming requests (plain SDK call)', async () => {
    const client = new Anthropic({ apiKey: KEY, baseURL: fake.url, maxRetries: 0 });
    fake.enqueue({ text: 'plain answer', toolUse: [{ name: 'Glob', input: { pattern: '*.ts' } }] });
    const message = await client.messages.create({
      model: 'claude-haiku-4-5',
      max_tokens: 100,
      tools: [{ name: 'Glob', input_schema: { type: 'object' } }],
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content[0]).toEqual({ type: 'text', text: 'plain answer' });
    expect(message.content[1]).toMatchObject({ type: 'tool_use', name: 'Glob', input: { pattern: '*.ts' } });
  });

  it('refuses to start without an API key', () => {
    expect(() => new AnthropicProvider({ apiKey: '' })).toThrow(/ANTHROPIC_API_KEY/);
  });
});
