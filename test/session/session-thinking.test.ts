import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../src/provider/index.js';
import { createMemorySessionStore, createUserSessionStore } from '../../src/store/index.js';
import { API_KEY, recordEvents, useSessionFixture } from './helpers.js';

const fx = useSessionFixture();
const SONNET = 'claude-sonnet-5-5';

describe('thinking on the current models', () => {
  it('keeps thinking blocks byte for byte through a tool loop and a save, and shows the progress notes', async () => {
    const store = createUserSessionStore(join(fx.cwd, '.sessions'));
    const s = fx.session({ model: SONNET, permissionMode: 'bypassPermissions', sessionStore: store });
    const rec = recordEvents(s);
    fx.fake.enqueue(
      {
        thinking: ['Reading the file list first.'],
        redactedThinking: true,
        toolUse: [{ name: 'Glob', input: { pattern: '*' } }],
      },
      { thinking: ['Nothing there; answering now.'], text: 'The folder is empty.' },
    );
    const result = await (await s.submit('what is here?')).completed;
    expect(result.response).toBe('The folder is empty.');
    // The request asked for the display that returns the notes between tool calls, with its beta.
    const first = fx.fake.log[0];
    expect(first?.body.thinking).toEqual({
      type: 'adaptive',
      display: 'updates',
      // Chosen explicitly (Fix thinking bound to a different conversation page): a mismatch drops blocks, never the turn.
      block_binding: { prefix_mismatch_behavior: 'drop_block' },
    });
    expect(String(first?.headers['anthropic-beta'])).toContain('thinking-display-updates-2026-08-18');
    // What a person sees between the tools: the model's own notes.
    expect(rec.of('progress_note').map(([n]) => n)).toEqual([
      'Reading the file list first.',
      'Nothing there; answering now.',
    ]);
    // The tool loop sent the thinking back unchanged (the fake rejects anything else) ...
    const loop = fx.fake.requests[1];
    const sentBack = loop.messages[1].content;
    expect(sentBack.map((b: { type: string }) => b.type)).toEqual([
      'thinking',
      'redacted_thinking',
      'tool_use',
    ]);
    expect(sentBack[0].thinking).toBe('Reading the file list first.');
    // ... and the history keeps it, saved exactly as received.
    await s.close();
    const saved = await store.load(s.getSession().getSessionId());
    const assistant = saved.status === 'valid' ? saved.record.messages[1] : undefined;
    expect(assistant?.content[0]).toEqual({
      type: 'thinking',
      thinking: 'Reading the file list first.',
      signature: sentBack[0].signature,
    });
    expect(assistant?.model).toBe(SONNET);
  });

  it('the fake rejects a tool loop whose thinking was dropped or altered', async () => {
    const client = new AnthropicProvider({ apiKey: API_KEY, baseURL: fx.fake.url, maxRetries: 0 });
    fx.fake.enqueue({
      thinking: ['plan'],
      toolUse: [{ name: 'Glob', input: { pattern: '*' }, id: 'toolu_1' }],
    });
    const events = [];
    for await (const e of client.stream({
      model: SONNET,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }],
      tools: [{ name: 'Glob', description: 'glob', inputSchema: { type: 'object' } }],
      maxTokens: 100,
      signal: new AbortController().signal,
    }))
      events.push(e);
    const block = events.find((e) => e.type === 'block');
    if (block?.type !== 'block' || block.block.type !== 'thinking') throw new Error('no thinking block');
    const loop = (content: Parameters<typeof client.stream>[0]['messages'][number]['content']) =>
      client.stream({
        model: SONNET,
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'go' }] },
          { role: 'assistant', content },
          { role: 'user', content: [{ type: 'tool_result', toolUseId: 'toolu_1', content: 'a.txt' }] },
        ],
        tools: [{ name: 'Glob', description: 'glob', inputSchema: { type: 'object' } }],
        maxTokens: 100,
        signal: new AbortController().signal,
      });
    const drain = async (it: AsyncIterable<unknown>) => {
      for await (const _ of it);
    };
    const toolUse = { type: 'tool_use' as const, id: 'toolu_1', name: 'Glob', input: { pattern: '*' } };
    await expect(drain(loop([toolUse]))).rejects.toThrow(/Expected `thinking`/);
    await expect(drain(loop([{ ...block.block, thinking: 'edited' }, toolUse]))).rejects.toThrow(
      /cannot be modified/,
    );
    fx.fake.enqueue({ text: 'done' });
    await expect(drain(loop([block.block, toolUse]))).resolves.toBeUndefined();
  });

  it('a session resumed under another model does not send the first model’s thinking', async () => {
    const store = createMemorySessionStore();
    const a = fx.session({ model: SONNET, sessionStore: store });
    fx.fake.enqueue({ thinking: ['hmm'], text: 'first answer' });
    await (await a.submit('one')).completed;
    await a.close();
    const b = fx.session({
      model: 'claude-opus-5-5',
      sessionStore: store,
      resumeSessionId: a.getSession().getSessionId(),
    });
    fx.fake.enqueue({ text: 'second answer' });
    const result = await (await b.submit('two')).completed;
    expect(result.response).toBe('second answer');
    const types = fx.fake.requests[1].messages[1].content.map((x: { type: string }) => x.type);
    expect(types).toEqual(['text']);
    // The history still holds the block, for the model that wrote it.
    expect(b.getFullHistory()[1]?.content[0]?.type).toBe('thinking');
  });

  it('never sends the settings the current models reject; effort and between_tools go out when set', async () => {
    const s = fx.session({ model: SONNET });
    fx.fake.enqueue({ text: 'hi' });
    await (await s.submit('hello')).completed;
    const body = fx.fake.requests[0];
    for (const key of ['temperature', 'top_p', 'top_k', 'tool_choice', 'output_config'])
      expect(body).not.toHaveProperty(key);
    expect(body.thinking).not.toHaveProperty('budget_tokens');
    expect(body.messages.at(-1).role).toBe('user');

    const provider = new AnthropicProvider({
      apiKey: API_KEY,
      baseURL: fx.fake.url,
      maxRetries: 0,
      effort: 'low',
      thinking: 'between_tools',
    });
    const t = fx.session({ model: SONNET, provider });
    fx.fake.enqueue({ text: 'hi' });
    await (await t.submit('hello')).completed;
    expect(fx.fake.requests[1]).toMatchObject({
      thinking: { type: 'between_tools' },
      output_config: { effort: 'low' },
    });
    // A model without between_tools or effort gets neither (it would answer 400).
    const u = fx.session({ model: 'claude-haiku-4-5', provider });
    fx.fake.enqueue({ text: 'hi' });
    await (await u.submit('hello')).completed;
    expect(fx.fake.requests[2]).not.toHaveProperty('thinking');
    expect(fx.fake.requests[2]).not.toHaveProperty('output_config');
  });
});
