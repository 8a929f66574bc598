import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../src/provider/index.js';
import type { ProviderEvent, ProviderRequest } from '../../src/provider/types.js';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic.js';
import { pngBase64 } from '../fakes/images.js';

const KEY = 'sk-ant-test-key-current-api';
let fake: FakeAnthropic;
beforeAll(async () => {
  fake = await startFakeAnthropic();
});
afterAll(async () => fake.close());
beforeEach(() => fake.reset());

const sdk = () => new Anthropic({ apiKey: KEY, baseURL: fake.url, maxRetries: 0 });
const user = (text: string) => ({ role: 'user' as const, content: text });

describe('the fake behaves like today’s Messages API (through the real SDK)', () => {
  it('rejects on claude-sonnet-5-5 the five settings the migration guide lists', async () => {
    const base = { model: 'claude-sonnet-5-5', max_tokens: 100, messages: [user('hi')] };
    const cases: Array<[object, RegExp]> = [
      [{ thinking: { type: 'enabled', budget_tokens: 2048 } }, /thinking budget/],
      [{ temperature: 0.2 }, /sampling parameters/],
      [{ messages: [user('hi'), { role: 'assistant', content: 'Sure' }] }, /prefill/],
      [
        {
          tools: [{ name: 'T', input_schema: { type: 'object' } }],
          tool_choice: { type: 'any' },
        },
        /forced tool use/,
      ],
      [{ thinking: { type: 'disabled' } }, /"disabled" is not supported/],
    ];
    for (const [extra, message] of cases) {
      await expect(sdk().messages.create({ ...base, ...extra } as never)).rejects.toMatchObject({
        status: 400,
        apiMessage: expect.stringMatching(message),
      });
    }
    // The same settings are fine on a model that still takes them.
    fake.enqueue({ text: 'ok' });
    await expect(
      sdk().messages.create({ ...base, model: 'claude-haiku-4-5', temperature: 0.2 } as never),
    ).resolves.toMatchObject({ stop_reason: 'end_turn' });
  });

  it('rejects an image over 5 MB as base64, and a request over the model window', async () => {
    const big = pngBase64(100, 100, 5_300_000);
    await expect(
      sdk().messages.create({
        model: 'claude-sonnet-5-5',
        max_tokens: 10,
        messages: [
          {
            role: 'user',
            content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: big } }],
          },
        ],
      }),
    ).rejects.toMatchObject({ status: 400, apiMessage: expect.stringMatching(/image exceeds 5 MB maximum/) });
    await expect(
      sdk().messages.create({
        model: 'claude-haiku-4-5',
        max_tokens: 10,
        messages: [user('word '.repeat(210_000))],
      }),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/prompt is too long: \d+ tokens > 200000 maximum/),
    });
  });

  it('counts tokens on the counting endpoint', async () => {
    const n = await sdk().messages.countTokens({
      model: 'claude-sonnet-5-5',
      messages: [user('hello there')],
    });
    expect(n.input_tokens).toBeGreaterThan(0);
    const provider = new AnthropicProvider({ apiKey: KEY, baseURL: fake.url, maxRetries: 0 });
    await expect(
      provider.countTokens({
        model: 'claude-sonnet-5-5',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'hello there' }] }],
        tools: [],
      }),
    ).resolves.toBe(n.input_tokens);
  });
});

describe('AnthropicProvider on today’s API', () => {
  const request = (over: Partial<ProviderRequest> = {}): ProviderRequest => ({
    model: 'claude-sonnet-5-5',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }],
    tools: [{ name: 'Write', description: 'write', inputSchema: { type: 'object' } }],
    maxTokens: 100,
    signal: new AbortController().signal,
    ...over,
  });
  const collect = async (r: ProviderRequest) => {
    const provider = new AnthropicProvider({ apiKey: KEY, baseURL: fake.url, maxRetries: 0 });
    const out: ProviderEvent[] = [];
    for await (const e of provider.stream(r)) out.push(e);
    return out;
  };

  it('yields a tool call cut at max_tokens as cut, not as unreadable arguments', async () => {
    fake.enqueue({ toolUse: [{ name: 'Write', input: { content: 'x'.repeat(50) } }], cutToolInput: true });
    const events = await collect(request());
    expect(events.map((e) => e.type)).toEqual(['progress', 'tool_use_cut', 'message_end']);
    expect(events.at(-1)).toMatchObject({ stopReason: 'max_tokens' });
  });

  it('passes the refusal’s stop_details on', async () => {
    fake.enqueue({
      text: 'No',
      stopReason: 'refusal',
      refusal: { category: 'cyber', explanation: 'malware' },
    });
    const events = await collect(request());
    expect(events.at(-1)).toMatchObject({
      stopReason: 'refusal',
      refusal: { category: 'cyber', explanation: 'malware' },
    });
  });

  it('omitted display: the thinking text is empty and the signature carries it', async () => {
    fake.enqueue({ thinking: ['secret plan'], text: 'hi' });
    // A model without display `updates` keeps its default (omitted).
    const events = await collect(request({ model: 'claude-opus-5' }));
    const block = events.find((e) => e.type === 'block');
    expect(block).toMatchObject({ block: { type: 'thinking', thinking: '' } });
    expect(events.some((e) => e.type === 'thinking_delta')).toBe(false);
  });
});
