/**
 * Where a thinking block may go back, as the fake checks it (Prefix checks
 * on thinking blocks page; Fix thinking bound to a different conversation
 * page; Preserved thinking page of the Bedrock user guide for the order of
 * the checks). Each block the fake hands out is bound to:
 *
 * - its organization (here: the API key): replayed under another one it is
 *   removed before the model sees it, always (`organization_binding_mismatch`);
 * - its model: another model may not read it (`model_binding_mismatch`);
 * - its prefix — `system`, `tools` and everything before it — on the models
 *   with preserved thinking. A mismatch is a 400 by default on accounts
 *   created since 2026-08-31 (`prefix_mismatch_behavior: "error"`); older
 *   accounts, and Mythos 5.1 (which records but does not run the check), see
 *   the block anyway and are told so (`thinking_mismatch_allowed`).
 *
 * With `thinking.block_binding.prefix_mismatch_behavior: "drop_block"` (and
 * its beta) a failing block is removed instead, with the rest of that
 * turn's consecutive thinking blocks, and each removal is reported in
 * `input_transformations`.
 */
import { createHash } from 'node:crypto';

// biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies.
type Body = any;
// biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies.
type Block = any;

/** What the fake remembers of a thinking block it handed out. */
export interface IssuedThinking {
  model: string;
  thinking: string;
  /** Hash of the block's prefix when it was produced. */
  prefix: string;
  /** The organization (API key) it was produced for. */
  organization: string;
}

/** One entry of the response's `input_transformations`. */
export interface InputTransformation {
  type: 'thinking_dropped' | 'thinking_mismatch_allowed';
  path: string;
  reason: 'model_binding_mismatch' | 'prefix_binding_mismatch' | 'organization_binding_mismatch';
}

/** The models that run the prefix check (Prefix checks page: featureMetadata.supportedModels). */
const PREFIX_CHECKED = /^claude-(fable-5-[12]|mythos-5-2|opus-5-5|sonnet-5-5|haiku-5-5)/;
/** Records the binding but does not run it (Preserved thinking page of the Bedrock user guide). */
const PREFIX_RECORDED_ONLY = /^claude-mythos-5-1/;

/** `value` as compared: cache breakpoints are no part of what a prefix is. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (key, v) => (key === 'cache_control' ? undefined : v));
}

function systemBlocks(system: unknown): unknown {
  return typeof system === 'string' ? [{ type: 'text', text: system }] : (system ?? []);
}

/** The prefix of a block at `messages[i].content[j]` of `body`: system, tools, every message before it, the blocks before it. */
export function prefixAt(
  body: Body,
  messages: readonly Block[],
  i: number,
  partial: readonly Block[],
): string {
  const before = messages.slice(0, i).map((m: Block) => ({
    role: m.role,
    content: typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content,
  }));
  return createHash('sha256')
    .update(canonical({ system: systemBlocks(body.system), tools: body.tools ?? [], before, partial }))
    .digest('hex');
}

/** The prefix of the next block a response to `body` writes after `written` (a paused turn continues its last message). */
export function prefixOfNew(body: Body, written: readonly Block[]): string {
  const messages = body.messages as Block[];
  const last = messages.at(-1);
  if (last?.role === 'assistant' && Array.isArray(last.content))
    return prefixAt(body, messages, messages.length - 1, [...last.content, ...written]);
  return prefixAt(body, messages, messages.length, written);
}

/** What the binding checks decided for a request. */
export type BindingOutcome = { error: string } | { transformations: InputTransformation[] };

/**
 * Checks every thinking block of `body` (mutated: dropped blocks are taken
 * out). `accountCreated` (YYYY-MM-DD) decides the default outcome of a
 * prefix mismatch; `organization` is the caller's key.
 */
export function checkBindings(
  body: Body,
  betas: string,
  issued: ReadonlyMap<string, IssuedThinking>,
  organization: string,
  accountCreated: string,
): BindingOutcome {
  const transformations: InputTransformation[] = [];
  const dropBlocks =
    body.thinking?.block_binding?.prefix_mismatch_behavior === 'drop_block' &&
    betas.includes('thinking-binding-controls-2026-08-01');
  const enforced =
    body.thinking?.block_binding?.prefix_mismatch_behavior === 'error' || accountCreated >= '2026-08-31';
  const messages = body.messages as Block[];
  for (const [i, m] of messages.entries()) {
    if (m.role !== 'assistant' || !Array.isArray(m.content)) continue;
    const kept: Block[] = [];
    let droppingTurn = false;
    for (const [j, b] of m.content.entries()) {
      const path = `messages.${i}.content.${j}`;
      if (b.type !== 'thinking') {
        droppingTurn = false;
        kept.push(b);
        continue;
      }
      const found = issued.get(b.signature);
      const drop = (reason: InputTransformation['reason']) => {
        transformations.push({ type: 'thinking_dropped', path, reason });
      };
      if (droppingTurn) {
        drop('prefix_binding_mismatch');
        continue;
      }
      if (found && found.organization !== organization) {
        drop('organization_binding_mismatch');
        continue;
      }
      if (found && found.model !== body.model) {
        if (dropBlocks) {
          drop('model_binding_mismatch');
          continue;
        }
        return { error: `${path}: Invalid \`signature\` in \`thinking\` block` };
      }
      if (found && PREFIX_CHECKED.test(body.model) && prefixAt(body, messages, i, kept) !== found.prefix) {
        if (dropBlocks) {
          drop('prefix_binding_mismatch');
          droppingTurn = true;
          continue;
        }
        if (enforced && !PREFIX_RECORDED_ONLY.test(body.model))
          return {
            error: `${path}: Invalid \`signature\` in \`thinking\` block. The block is bound to a different conversation. Remove the block, or set \`thinking.block_binding.prefix_mismatch_behavior\` to "drop_block". This setting requires the \`thinking-binding-controls-2026-08-01\` value in the \`anthropic-beta\` header.`,
          };
        transformations.push({ type: 'thinking_mismatch_allowed', path, reason: 'prefix_binding_mismatch' });
      }
      kept.push(b);
    }
    m.content = kept;
  }
  return { transformations };
}
