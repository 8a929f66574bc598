/**
 * Tool names and tool_result content as today's Messages API takes them
 * (Define tools and Handle tool calls pages), checked on the fake through
 * the real SDK, and what the provider sends for a result with images.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { toApiMessages } from '../../src/provider/convert.js';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic.js';
import { PNG_1X1, pngBase64 } from '../fakes/images.js';

let fake: FakeAnthropic;
beforeAll(async () => {
  fake = await startFakeAnthropic();
});
afterAll(async () => fake.close());
beforeEach(() => fake.reset());

const sdk = () => new Anthropic({ apiKey: 'sk-ant-test-tool-results', baseURL: fake.url, maxRetries: 0 });
const tool = (name: string) => ({ name, input_schema: { type: 'object' as const } });

/** A request whose last message answers one tool call with `content`. */
function answering(content: unknown) {
  return {
    model: 'claude-sonnet-5-5',
    max_tokens: 100,
    tools: [tool('mcp__notes__picture')],
    messages: [
      { role: 'user' as const, content: 'show me' },
      {
        role: 'assistant' as const,
        content: [{ type: 'tool_use' as const, id: 'toolu_1', name: 'mcp__notes__picture', input: {} }],
      },
      { role: 'user' as const, content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content }] },
    ],
  };
}

describe('tool names and tool results on the fake Messages API', () => {
  it('rejects a tool name outside ^[a-zA-Z0-9_-]{1,64}$ and duplicate names', async () => {
    const base = {
      model: 'claude-sonnet-5-5',
      max_tokens: 100,
      messages: [{ role: 'user' as const, content: 'hi' }],
    };
    for (const [tools, message] of [
      [[tool('mcp__my server__x')], /should match pattern/],
      [[tool(`mcp__notes__${'x'.repeat(60)}`)], /should match pattern/],
      [[tool('Read'), tool('Read')], /must be unique/],
    ] as const) {
      await expect(sdk().messages.create({ ...base, tools: [...tools] })).rejects.toMatchObject({
        status: 400,
        apiMessage: expect.stringMatching(message),
      });
    }
  });

  it('takes text and image blocks inside a tool_result, and holds those images to the vision limits', async () => {
    const image = (data: string) => ({
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data },
    });
    await expect(
      sdk().messages.create(answering([{ type: 'text', text: 'the board:' }, image(PNG_1X1)]) as never),
    ).resolves.toMatchObject({ type: 'message' });
    await expect(
      sdk().messages.create(answering([{ type: 'text', text: 'big:' }, image(pngBase64(9000, 10))]) as never),
    ).rejects.toMatchObject({ status: 400, apiMessage: expect.stringMatching(/dimensions exceed/) });
    await expect(
      sdk().messages.create(answering([{ type: 'tool_use', id: 'x', name: 'y', input: {} }]) as never),
    ).rejects.toMatchObject({
      status: 400,
      apiMessage: expect.stringMatching(/does not match any of the expected tags/),
    });
  });

  it('sends a result with images as its text, then the images; an empty text is left out', () => {
    const [message] = toApiMessages([
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            toolUseId: 't1',
            content: 'the board:',
            images: [{ mediaType: 'image/png', data: PNG_1X1 }],
          },
          {
            type: 'tool_result',
            toolUseId: 't2',
            content: '',
            images: [{ mediaType: 'image/png', data: PNG_1X1 }],
          },
          { type: 'tool_result', toolUseId: 't3', content: 'plain' },
        ],
      },
    ]);
    const png = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_1X1 } };
    expect(message?.content).toEqual([
      { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'the board:' }, png] },
      { type: 'tool_result', tool_use_id: 't2', content: [png] },
      { type: 'tool_result', tool_use_id: 't3', content: 'plain' },
    ]);
  });
});
