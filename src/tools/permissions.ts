/**
 * The permission policy: which tool classes run on their own, which ask a
 * person, and which are refused, per permission mode. The session engine
 * applies it; this table is the single source of truth.
 */
import type { PermissionMode, ToolClass } from '../vocabulary.js';

/** What the policy says about one tool call before anyone is asked. */
export type PermissionDecision = 'allow' | 'ask' | 'deny';

const POLICY: Record<PermissionMode, Record<ToolClass, PermissionDecision>> = {
  // Planning may look around but never change or run anything.
  plan: { inspect: 'allow', modify: 'deny', execute: 'deny' },
  default: { inspect: 'allow', modify: 'ask', execute: 'ask' },
  // Accepting edits still keeps a person in front of shell commands.
  acceptEdits: { inspect: 'allow', modify: 'allow', execute: 'ask' },
  bypassPermissions: { inspect: 'allow', modify: 'allow', execute: 'allow' },
};

/**
 * Decides whether a tool of `toolClass` may run in `mode` without asking.
 *
 * | mode              | inspect | modify | execute |
 * |-------------------|---------|--------|---------|
 * | plan              | allow   | deny   | deny    |
 * | default           | allow   | ask    | ask     |
 * | acceptEdits       | allow   | allow  | ask     |
 * | bypassPermissions | allow   | allow  | allow   |
 *
 * An unknown mode or class (from a hand-edited record, say) is treated as
 * `ask`, the safe middle, rather than thrown.
 */
export function decidePermission(mode: PermissionMode, toolClass: ToolClass): PermissionDecision {
  return POLICY[mode]?.[toolClass] ?? 'ask';
}
