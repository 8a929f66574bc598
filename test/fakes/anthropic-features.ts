/**
 * Request features the fake takes only where the real API takes them, each
 * rule with its page of platform.claude.com/docs (as of 2026-12-01).
 */

// biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies.
type Body = any;

/** Effort page: the levels each model accepts (none on Sonnet 4.5 and Haiku 4.5). */
function effortsOf(model: string): readonly string[] | undefined {
  if (/^claude-(opus-4-6|sonnet-4-6)/.test(model)) return ['low', 'medium', 'high', 'max'];
  if (/^claude-opus-4-5/.test(model)) return ['low', 'medium', 'high'];
  if (/^claude-(sonnet-4-5|haiku-4-5)/.test(model)) return [];
  if (/^claude-(opus-4-[78]|opus-5|sonnet-5|haiku-5-5|fable-5|mythos-5)/.test(model))
    return ['low', 'medium', 'high', 'xhigh', 'max'];
  return undefined;
}

/** Mid-conversation system messages and tool changes page: the models that take `role: "system"` messages. */
const SYSTEM_MESSAGES = /^claude-(fable-5|mythos-5|opus-5|opus-4-8|sonnet-5-5|haiku-5-5)/;

/** The 400 message for a feature `body` uses where the API would refuse it, or undefined. */
export function features(body: Body, betas: string): string | undefined {
  const effort = body.output_config?.effort;
  const levels = effortsOf(body.model);
  if (effort !== undefined && levels !== undefined && !levels.includes(effort))
    return `output_config.effort: "${effort}" is not supported by ${body.model}`;
  // Fix thinking bound to a different conversation page: the setting needs its beta header.
  if (body.thinking?.block_binding && !betas.includes('thinking-binding-controls-2026-08-01'))
    return 'thinking.block_binding: This setting requires the `thinking-binding-controls-2026-08-01` value in the `anthropic-beta` header.';
  // Refusals and fallback page: `fallbacks` is a beta.
  if (body.fallbacks !== undefined && !betas.includes('server-side-fallback-'))
    return 'fallbacks: Extra inputs are not permitted';
  for (const [i, m] of (body.messages as Array<{ role: string; content: unknown }>).entries()) {
    if (m.role !== 'system') continue;
    if (!SYSTEM_MESSAGES.test(body.model))
      return `messages.${i}.role: system messages inside messages are not supported on ${body.model}; use the top-level system field`;
    if (i === 0) return `messages.0.role: the first message must use the "user" role`;
    for (const [j, b] of (Array.isArray(m.content) ? m.content : []).entries()) {
      const change = b as { type: string; tool?: { type?: string } };
      if (!['text', 'tool_addition', 'tool_removal'].includes(change.type))
        return `messages.${i}.content.${j}: a system message takes text, tool_addition and tool_removal blocks`;
      if (change.type === 'text') continue;
      if (!betas.includes('mid-conversation-tool-changes-2026-07-01'))
        return `messages.${i}.content.${j}: ${change.type} requires the mid-conversation-tool-changes-2026-07-01 beta`;
      if (change.tool?.type === 'tool_definition' && !betas.includes('inline-tools-2026-09-15'))
        return `messages.${i}.content.${j}: a tool defined inline requires the inline-tools-2026-09-15 beta`;
    }
  }
  return undefined;
}
