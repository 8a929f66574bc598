/**
 * How a tool reaches the workspace: every file operation and command goes to
 * the turn's sandbox (`ToolContext.sandbox`), where paths are resolved where
 * they are used. A tool called without one (a library user calling
 * `tool.run` directly) gets a sandbox of its own for that one call, with the
 * safe default settings.
 */

import { SwitchboardError } from '../errors.js';
import { HelperError } from '../sandbox/box.js';
import { Sandbox } from '../sandbox/sandbox.js';
import type { SandboxTurn } from '../sandbox/turn.js';
import { describeFsError } from './define.js';
import type { ToolContext } from './types.js';

let fallback: Sandbox | undefined;

/** Runs `work` in the context's sandbox turn, or in a one-call turn of the default sandbox. */
export async function inSandbox<T>(
  context: ToolContext,
  work: (turn: SandboxTurn) => Promise<T>,
): Promise<T> {
  if (context.sandbox) return work(context.sandbox);
  fallback ??= new Sandbox();
  const turn = fallback.openTurn(context.cwd, context.clock);
  try {
    return await work(turn);
  } finally {
    await turn.close();
  }
}

/** What the helper answers about a path it opened. */
export interface PathInfo {
  /** Workspace-relative path, `.` for the root. */
  shown: string;
  kind: 'file' | 'dir' | 'other';
  size: number;
}

/**
 * Sends a file operation about `path` and turns the helper's refusals into
 * messages the model can act on (`x does not exist.`, a path escape, a hard link).
 */
export async function fileRequest<T>(
  context: ToolContext,
  op: string,
  path: string,
  payload: Record<string, unknown> = {},
  timeoutMs?: number,
): Promise<T> {
  try {
    return await inSandbox(context, (turn) => turn.request<T>(op, { path, ...payload }, timeoutMs));
  } catch (err) {
    throw asToolError(err, path);
  }
}

/** A helper's error as a SwitchboardError worded for the model (shown as is, see defineTool). */
export function asToolError(err: unknown, path: string): unknown {
  if (!(err instanceof HelperError)) return err;
  const plain = { detail: { path, plain: true } };
  if (err.code === 'TOOL_PATH_ESCAPE') return new SwitchboardError('TOOL_PATH_ESCAPE', err.message, plain);
  if (err.code === 'TOOL_FAILED' || err.code === 'EISDIR')
    return new SwitchboardError('TOOL_FAILED', err.message, plain);
  if (err.code === 'ENXIO')
    return new SwitchboardError('TOOL_FAILED', `${path} is not a regular file.`, plain);
  if (err.code === 'ELOOP') {
    return new SwitchboardError('TOOL_FAILED', `Too many levels of symbolic links in ${path}.`, plain);
  }
  return new SwitchboardError('TOOL_FAILED', describeFsError({ code: err.code }, path), plain);
}
/** What the helper answers to a walk: the start folder and the regular files under it. */
export interface WalkReply extends PathInfo {
  files: { shown: string; rel: string; mtimeMs: number; size: number }[];
  /** True when the walk stopped at its entry limit. */
  truncated: boolean;
}
