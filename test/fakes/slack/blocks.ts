/**
 * Block Kit as the fake Slack checks and shows it: the limits the real API
 * enforces (section text 3,000 characters, markdown blocks 12,000 in total,
 * 50 blocks, 25 buttons per actions block, action values 2,000, unique
 * action_ids) and the text a person sees for a list of blocks.
 */

// biome-ignore lint/suspicious/noExplicitAny: blocks arrive as parsed JSON of any shape.
export type AnyBlock = Record<string, any>;

/** Limits of one message's blocks. */
export const BLOCK_LIMITS = {
  blocks: 50,
  sectionText: 3000,
  markdownTotal: 12_000,
  actionsElements: 25,
  buttonText: 75,
  actionId: 255,
  buttonValue: 2000,
} as const;

const KNOWN_TYPES = new Set(['section', 'markdown', 'actions', 'context', 'divider', 'header', 'rich_text']);

/** Returns why Slack would answer `invalid_blocks`, or undefined when the blocks are fine. */
export function validateBlocks(blocks: unknown): string | undefined {
  if (!Array.isArray(blocks)) return 'blocks must be an array';
  if (blocks.length > BLOCK_LIMITS.blocks) return `more than ${BLOCK_LIMITS.blocks} blocks`;
  let markdownTotal = 0;
  const actionIds = new Set<string>();
  for (const [i, block] of (blocks as AnyBlock[]).entries()) {
    if (!block || typeof block !== 'object' || !KNOWN_TYPES.has(block.type))
      return `block ${i}: unknown type`;
    if (block.type === 'section') {
      const text = block.text;
      if (!text || (text.type !== 'mrkdwn' && text.type !== 'plain_text') || typeof text.text !== 'string')
        return `block ${i}: section needs a text object`;
      if (text.text.length === 0) return `block ${i}: empty section text`;
      if (text.text.length > BLOCK_LIMITS.sectionText)
        return `block ${i}: section text longer than ${BLOCK_LIMITS.sectionText}`;
    }
    if (block.type === 'markdown') {
      if (typeof block.text !== 'string' || block.text.length === 0) return `block ${i}: markdown needs text`;
      markdownTotal += block.text.length;
      if (markdownTotal > BLOCK_LIMITS.markdownTotal)
        return `markdown blocks longer than ${BLOCK_LIMITS.markdownTotal} in total`;
    }
    if (block.type === 'actions') {
      const elements = block.elements;
      if (!Array.isArray(elements) || elements.length === 0) return `block ${i}: actions need elements`;
      if (elements.length > BLOCK_LIMITS.actionsElements) return `block ${i}: too many elements`;
      for (const el of elements as AnyBlock[]) {
        if (el.type !== 'button') return `block ${i}: only buttons are supported by the fake`;
        if (el.text?.type !== 'plain_text' || typeof el.text.text !== 'string' || !el.text.text)
          return `block ${i}: button text must be plain_text`;
        if (el.text.text.length > BLOCK_LIMITS.buttonText) return `block ${i}: button text too long`;
        if (typeof el.action_id !== 'string' || el.action_id.length > BLOCK_LIMITS.actionId)
          return `block ${i}: bad action_id`;
        if (actionIds.has(el.action_id)) return `block ${i}: duplicate action_id ${el.action_id}`;
        actionIds.add(el.action_id);
        if (
          el.value !== undefined &&
          (typeof el.value !== 'string' || el.value.length > BLOCK_LIMITS.buttonValue)
        )
          return `block ${i}: button value longer than ${BLOCK_LIMITS.buttonValue}`;
        if (el.style !== undefined && el.style !== 'primary' && el.style !== 'danger')
          return `block ${i}: bad button style`;
      }
    }
  }
  return undefined;
}

/** The text a person sees for blocks: section and markdown text, buttons as `[Label]`. */
export function renderBlocks(blocks: readonly AnyBlock[]): string {
  const lines: string[] = [];
  for (const block of blocks) {
    if (block.type === 'section' || block.type === 'header') lines.push(String(block.text?.text ?? ''));
    else if (block.type === 'markdown') lines.push(String(block.text));
    else if (block.type === 'context')
      lines.push((block.elements ?? []).map((e: AnyBlock) => String(e.text ?? '')).join(' '));
    else if (block.type === 'actions')
      lines.push((block.elements ?? []).map((e: AnyBlock) => `[${e.text?.text ?? ''}]`).join(' '));
  }
  return lines.join('\n');
}

/** Every button in the blocks, for pressing them in tests. */
export function buttonsOf(blocks: readonly AnyBlock[] | undefined): AnyBlock[] {
  return (blocks ?? []).filter((b) => b.type === 'actions').flatMap((b) => (b.elements ?? []) as AnyBlock[]);
}
