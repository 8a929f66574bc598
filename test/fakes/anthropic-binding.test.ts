/**
 * The fake's thinking bindings, through the real SDK: what the docs say the
 * API does with a thinking block sent back (Prefix checks on thinking blocks
 * page; Fix thinking bound to a different conversation page), both
 * outcomes of a prefix mismatch, and the features it takes only with their
 * beta or on the models that have them.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeAnthropic, startFakeAnthropic } from './anthropic.js';

const fakes: FakeAnthropic[] = [];
afterEach(async () => {
  for (const f of fakes.splice(0)) await f.close();
});

async function start(options: Parameters<typeof startFakeAnthropic>[0] = {}) {
  const fake = await startFakeAnthropic(options);
  fakes.push(fake);
  return fake;
}

const client = (fake: FakeAnthropic, apiKey = 'sk-one') =>
  new Anthropic({ apiKey, baseURL: fake.url, maxRetries: 0 });
const BINDING = 'thinking-binding-controls-2026-08-01';
const drop = { type: 'adaptive', block_binding: { prefix_mismatch_behavior: 'drop_block' } };

// biome-ignore lint/suspicious/noExplicitAny: request bodies as the wire takes them.
async function send(fake: FakeAnthropic, body: any, options: { betas?: string[]; apiKey?: string } = {}) {
  const { betas = [], apiKey } = options;
  try {
    const message = await client(fake, apiKey)
      .messages.stream(
        { max_tokens: 100, ...body },
        betas.length > 0 ? { headers: { 'anthropic-beta': betas.join(',') } } : {},
      )
      .finalMessage();
    return { ok: true as const, message, transformations: fake.log.at(-1)?.inputTransformations ?? [] };
  } catch (err) {
    return { ok: false as const, error: (err as Error).message };
  }
}

/** A first turn that returns a thinking block, and the conversation to send it back in. */
async function firstTurn(fake: FakeAnthropic, model = 'claude-sonnet-5-5', apiKey?: string) {
  fake.enqueue({ thinking: ['let me see'], text: 'Hello.' });
  const first = await send(
    fake,
    { model, system: 'Be brief.', messages: [{ role: 'user', content: 'hi' }] },
    apiKey ? { apiKey } : {},
  );
  if (!first.ok) throw new Error(first.error);
  const reply = { role: 'assistant', content: first.message.content };
  return (system: string, more: object = {}) => ({
    model,
    system,
    messages: [{ role: 'user', content: 'hi' }, reply, { role: 'user', content: 'and?' }],
    ...more,
  });
}

describe('the fake binds thinking as the API does', () => {
  it('takes a block back unchanged; a changed system is a 400 naming the block and the fix', async () => {
    const fake = await start();
    const conversation = await firstTurn(fake);
    expect((await send(fake, conversation('Be brief.'))).ok).toBe(true);
    const changed = await send(fake, conversation('Be brief. Today is Monday.'));
    expect(changed.ok).toBe(false);
    expect(changed.ok ? '' : changed.error).toMatch(
      /messages\.1\.content\.0: Invalid `signature` in `thinking` block\. The block is bound to a different conversation\. Remove the block, or set `thinking\.block_binding\.prefix_mismatch_behavior` to \\?"drop_block/,
    );
  });

  it('with drop_block and its beta drops the block and reports it; without the beta the setting is refused', async () => {
    const fake = await start();
    const conversation = await firstTurn(fake);
    const dropped = await send(fake, conversation('Changed.', { thinking: drop }), { betas: [BINDING] });
    expect(dropped.ok).toBe(true);
    expect(dropped.ok && dropped.transformations).toEqual([
      { type: 'thinking_dropped', path: 'messages.1.content.0', reason: 'prefix_binding_mismatch' },
    ]);
    const noBeta = await send(fake, conversation('Changed.', { thinking: drop }));
    expect(noBeta.ok ? '' : noBeta.error).toMatch(
      /requires the `thinking-binding-controls-2026-08-01` value/,
    );
  });

  it('lets an account created before 2026-08-31 through, reporting the mismatch', async () => {
    const fake = await start({ accountCreated: '2026-06-01' });
    const conversation = await firstTurn(fake);
    const allowed = await send(fake, conversation('Changed.'));
    expect(allowed.ok && allowed.transformations).toEqual([
      { type: 'thinking_mismatch_allowed', path: 'messages.1.content.0', reason: 'prefix_binding_mismatch' },
    ]);
  });

  it('binds a block to its model and to the organization that got it', async () => {
    const fake = await start();
    const conversation = await firstTurn(fake);
    const other = await send(fake, { ...conversation('Be brief.'), model: 'claude-opus-5-5' });
    expect(other.ok ? '' : other.error).toMatch(/Invalid `signature` in `thinking` block/);
    const otherDropped = await send(
      fake,
      { ...conversation('Be brief.', { thinking: drop }), model: 'claude-opus-5-5' },
      { betas: [BINDING] },
    );
    expect(otherDropped.ok && otherDropped.transformations[0]?.reason).toBe('model_binding_mismatch');
    const otherKey = await send(fake, conversation('Be brief.'), { apiKey: 'sk-two' });
    expect(otherKey.ok && otherKey.transformations[0]?.reason).toBe('organization_binding_mismatch');
  });

  it('fails a later block when an earlier one between them was left out', async () => {
    const fake = await start();
    const conversation = await firstTurn(fake);
    fake.enqueue({ thinking: ['second thought'], text: 'More.' });
    const second = await send(fake, conversation('Be brief.'));
    if (!second.ok) throw new Error(second.error);
    const full = conversation('Be brief.');
    // biome-ignore lint/suspicious/noExplicitAny: messages as the wire takes them.
    const messages: any[] = [
      ...full.messages,
      { role: 'assistant', content: second.message.content },
      { role: 'user', content: 'ok' },
    ];
    expect((await send(fake, { ...full, messages })).ok).toBe(true);
    // The first reply without its thinking: the second reply's block no longer has its prefix.
    messages[1] = { role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] };
    const gap = await send(fake, { ...full, messages });
    expect(gap.ok ? '' : gap.error).toMatch(/messages\.3\.content\.0: .*bound to a different conversation/);
  });

  it('takes effort levels, system messages and fallbacks only where the API does', async () => {
    const fake = await start();
    const base = { messages: [{ role: 'user', content: 'hi' }] };
    const xhigh = await send(fake, { ...base, model: 'claude-opus-4-6', output_config: { effort: 'xhigh' } });
    expect(xhigh.ok ? '' : xhigh.error).toMatch(
      /output_config\.effort: \\?"xhigh\\?" is not supported by claude-opus-4-6/,
    );
    const system = [
      ...base.messages,
      { role: 'assistant', content: 'ok' },
      { role: 'system', content: 'Now be terse.' },
      { role: 'user', content: 'go' },
    ];
    expect((await send(fake, { model: 'claude-sonnet-5', messages: system })).ok).toBe(false);
    expect((await send(fake, { model: 'claude-sonnet-5-5', messages: system })).ok).toBe(true);
    expect((await send(fake, { ...base, model: 'claude-sonnet-5-5', fallbacks: 'default' })).ok).toBe(false);
  });
});
