/**
 * Workspace confinement. Every path a tool touches goes through
 * {@link resolveInWorkspace}, which resolves symlinks before deciding, so a
 * link inside the workspace that points elsewhere cannot be used to read or
 * write outside it.
 */
import { lstat, readlink, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { SwitchboardError } from '../errors.js';

/** Linux gives up after 40 links; so do we, instead of looping forever. */
const MAX_LINK_DEPTH = 40;

function errnoCode(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * The real path of `target`, where the part that does not exist yet is kept
 * as written: the nearest existing ancestor is resolved with `realpath`, so a
 * new file under a linked directory is judged by where the link leads. A
 * dangling symlink is followed by hand, since writing through it would
 * create its target.
 */
async function realpathAllowMissing(target: string, depth = 0): Promise<string> {
  if (depth > MAX_LINK_DEPTH) {
    throw new SwitchboardError('TOOL_FAILED', `Too many levels of symbolic links at ${target}.`);
  }
  try {
    return await realpath(target);
  } catch (err) {
    const code = errnoCode(err);
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
  }
  const parent = dirname(target);
  if (parent === target) return target;
  const realParent = await realpathAllowMissing(parent, depth);
  const entry = join(realParent, basename(target));
  let isLink = false;
  try {
    isLink = (await lstat(entry)).isSymbolicLink();
  } catch {
    // Missing: the part that will be created.
  }
  if (!isLink) return entry;
  // Resolve the link text against the parent's real path, as the kernel would.
  const linkText = await readlink(entry);
  return realpathAllowMissing(resolve(realParent, linkText), depth + 1);
}

/** True when `child` is `root` or lies beneath it (both already real paths). */
export function isInside(root: string, child: string): boolean {
  const rel = relative(root, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * The real path of the workspace, or a `TOOL_FAILED` error saying it is
 * missing, so every tool reports a vanished workspace the same way.
 */
export async function workspaceRoot(cwd: string): Promise<string> {
  try {
    return await realpath(cwd);
  } catch (err) {
    throw new SwitchboardError(
      'TOOL_FAILED',
      `The workspace ${cwd} does not exist or cannot be read; create it or point the session at another folder.`,
      { cause: err },
    );
  }
}

/**
 * Resolves `path` (relative to `cwd`, or absolute) to its real location and
 * checks that it lies inside the real path of `cwd`. Paths that do not exist
 * yet are allowed as long as their nearest existing ancestor is inside.
 *
 * @returns the real absolute path, safe to open.
 * @throws SwitchboardError `TOOL_PATH_ESCAPE` when `..`, an absolute path or
 *   a symlink (to a file or a directory) leads outside the workspace.
 */
export async function resolveInWorkspace(cwd: string, path: string): Promise<string> {
  const root = await workspaceRoot(cwd);
  const real = await realpathAllowMissing(resolve(root, path));
  if (!isInside(root, real)) {
    throw new SwitchboardError(
      'TOOL_PATH_ESCAPE',
      `The path "${path}" leads outside the workspace; tools are confined to the workspace (${root}). Use a path inside it.`,
      { detail: { path, workspace: root } },
    );
  }
  return real;
}

/** How a tool shows a resolved path to the model: relative to the workspace, `.` for the root. */
export function displayPath(root: string, real: string): string {
  const rel = relative(root, real);
  return rel === '' ? '.' : rel.split(sep).join('/');
}

/** A file named by a tool input: the workspace's real root, the file's real path, and how to show it. */
export interface WorkspaceFile {
  root: string;
  real: string;
  shown: string;
}

/** Resolves a tool's file argument inside the workspace (throws TOOL_PATH_ESCAPE like resolveInWorkspace). */
export async function resolveWorkspaceFile(cwd: string, path: string): Promise<WorkspaceFile> {
  const root = await workspaceRoot(cwd);
  const real = await resolveInWorkspace(root, path);
  return { root, real, shown: displayPath(root, real) };
}
