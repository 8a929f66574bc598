/**
 * The fake's blocks beyond text, thinking and client tool calls, streamed
 * the way the real API streams them (the recordings in
 * test/fixtures/anthropic-recorded show the same events): server tool
 * calls with their input as input_json_delta (Server tools page), text with
 * its citations as citations_delta (Citations page), a compaction block
 * whose content arrives in one compaction_delta (Compaction page), and any
 * other block whole in its content_block_start. Also the server-side
 * fallback of a refused request (Refusals and fallback page).
 */
import type { ScriptedResponse } from './anthropic-script.js';

// biome-ignore lint/suspicious/noExplicitAny: blocks in the API's JSON shape.
type Block = any;
type Send = (event: string, data: unknown) => void;

/** Streams `block` at `index`: start, its deltas, stop. */
export function streamRawBlock(send: Send, index: number, block: Block): void {
  const start = (content_block: unknown) =>
    send('content_block_start', { type: 'content_block_start', index, content_block });
  const delta = (d: unknown) => send('content_block_delta', { type: 'content_block_delta', index, delta: d });
  if (block.type === 'server_tool_use' || block.type === 'mcp_tool_use') {
    start({ ...block, input: {} });
    const json = JSON.stringify(block.input ?? {});
    delta({ type: 'input_json_delta', partial_json: json.slice(0, Math.ceil(json.length / 2)) });
    delta({ type: 'input_json_delta', partial_json: json.slice(Math.ceil(json.length / 2)) });
  } else if (block.type === 'text') {
    start({ type: 'text', text: '' });
    delta({ type: 'text_delta', text: block.text });
    for (const citation of block.citations ?? []) delta({ type: 'citations_delta', citation });
  } else if (block.type === 'compaction') {
    start({ type: 'compaction', content: null, encrypted_content: null });
    delta({
      type: 'compaction_delta',
      content: block.content,
      encrypted_content: block.encrypted_content ?? null,
    });
  } else {
    start(block);
  }
  send('content_block_stop', { type: 'content_block_stop', index });
}

/** The models that take `fallbacks` (Refusals and fallback page: Haiku 5.5 has no server-side fallback). */
export function takesFallbacks(model: string): boolean {
  return /^claude-(fable-5|opus-5|sonnet-5-5)/.test(model);
}

/**
 * What a refused request becomes when it asked for `fallbacks: "default"`
 * with the beta on a model that takes it: a `fallback` block naming the
 * declining and the answering model, then the answer, ended normally.
 */
export function withServerFallback(
  script: ScriptedResponse,
  // biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies.
  body: any,
  betas: string,
): ScriptedResponse {
  const to = script.refusal?.recommended_model;
  if (script.stopReason !== 'refusal' || !to || body.fallbacks !== 'default') return script;
  if (!betas.includes('server-side-fallback-') || !takesFallbacks(body.model)) return script;
  const { refusal: _refusal, ...rest } = script;
  return {
    ...rest,
    blocks: [
      { type: 'fallback', from: { model: body.model }, to: { model: to }, trigger: { type: 'refusal' } },
    ],
    text: script.fallbackText ?? 'An answer from the fallback model.',
    stopReason: 'end_turn',
  };
}
