/**
 * The fake Messages API's cache rules, through the real SDK, and the
 * provider's breakpoints against them: the minimum length, the limit of 4
 * marks, 1-hour marks before 5-minute ones, and the 20-block lookback that the
 * provider's mark on the previous request's end gets past.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../src/provider/index.js';
import type { ProviderEvent, ProviderMessage } from '../../src/provider/types.js';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic.js';

const KEY = 'sk-ant-cache-rules';
const MODEL = 'claude-sonnet-5-5';
let fake: FakeAnthropic;
let sdk: Anthropic;

beforeAll(async () => {
  fake = await startFakeAnthropic();
  sdk = new Anthropic({ apiKey: KEY, baseURL: fake.url, maxRetries: 0 });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const long = (label: string) => `${label} ${'lorem ipsum dolor sit amet '.repeat(300)}`;
const mark = { type: 'ephemeral' as const };

async function send(params: Omit<Anthropic.MessageCreateParamsNonStreaming, 'model' | 'max_tokens'>) {
  return (await sdk.messages.create({ model: MODEL, max_tokens: 100, ...params })).usage;
}

async function stream(messages: ProviderMessage[]): Promise<Record<string, unknown>> {
  const provider = new AnthropicProvider({ apiKey: KEY, baseURL: fake.url, maxRetries: 0 });
  const events: ProviderEvent[] = [];
  for await (const e of provider.stream({
    model: MODEL,
    messages,
    tools: [{ name: 'Read', description: 'read a file', inputSchema: { properties: {} } }],
    maxTokens: 100,
    signal: new AbortController().signal,
  }))
    events.push(e);
  return fake.log.at(-1)?.usage as Record<string, unknown>;
}

describe('the fake prompt cache', () => {
  it('writes nothing for a prefix under the minimum length, silently', async () => {
    const usage = await send({
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: mark }] }],
    });
    expect(usage.cache_creation_input_tokens).toBe(0);
    expect(usage.cache_read_input_tokens).toBe(0);
  });

  it('refuses a fifth breakpoint and a 1-hour mark after a 5-minute one', async () => {
    const five = [1, 2, 3, 4, 5].map((i) => ({
      type: 'text' as const,
      text: `part ${i}`,
      cache_control: mark,
    }));
    await expect(send({ messages: [{ role: 'user', content: five }] })).rejects.toThrow(
      /A maximum of 4 blocks with cache_control may be provided\. Found 5\./,
    );
    await expect(
      send({
        system: [{ type: 'text', text: long('system'), cache_control: mark }],
        messages: [
          {
            role: 'user',
            content: [{ type: 'text', text: 'x', cache_control: { type: 'ephemeral', ttl: '1h' } }],
          },
        ],
      }),
    ).rejects.toThrow(/cannot come after one with ttl=.*5m/);
  });

  it('finds an entry at most 20 blocks back; the provider marks the previous end so a wide round still reads', async () => {
    const first: ProviderMessage[] = [{ role: 'user', content: [{ type: 'text', text: long('question') }] }];
    const wrote = await stream(first);
    expect(wrote.cache_creation_input_tokens).toBeGreaterThan(0);
    // One round of 12 parallel tool calls: 24 blocks after the previous request's end.
    const ids = Array.from({ length: 12 }, (_, i) => `toolu_${i}`);
    const wide: ProviderMessage[] = [
      ...first,
      { role: 'assistant', content: ids.map((id) => ({ type: 'tool_use', id, name: 'Read', input: {} })) },
      { role: 'user', content: ids.map((id) => ({ type: 'tool_result', toolUseId: id, content: 'ok' })) },
    ];
    const read = await stream(wide);
    expect(read.cache_read_input_tokens).toBe(wrote.cache_creation_input_tokens);

    // The same request with only the newest message marked looks back 20 blocks and misses it.
    fake.reset();
    await stream(first);
    const api = fake.requests[0];
    const body = fake.requests[0].messages;
    const usage = await send({
      tools: api.tools,
      messages: [
        { role: 'user', content: [{ type: 'text', text: body[0].content[0].text }] },
        {
          role: 'assistant',
          content: ids.map((id) => ({ type: 'tool_use' as const, id, name: 'Read', input: {} })),
        },
        {
          role: 'user',
          content: ids.map((id, i) => ({
            type: 'tool_result' as const,
            tool_use_id: id,
            content: 'ok',
            ...(i === ids.length - 1 ? { cache_control: mark } : {}),
          })),
        },
      ],
    });
    expect(usage.cache_read_input_tokens).toBe(0);
  });
});
