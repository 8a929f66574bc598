/**
 * Walks a folder inside the workspace for Glob and Grep. Symlinks are judged
 * by their real target: links that leave the workspace are skipped; links
 * to folders are not descended, because every folder inside the workspace is
 * reached by its real path anyway and this rules out link cycles.
 */
import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { SwitchboardError } from '../errors.js';
import { displayPath, isInside } from './paths.js';

/** Folders Glob and Grep never enter on their own: vendored code and git internals. */
export const SKIPPED_DIRS: ReadonlySet<string> = new Set(['node_modules', '.git']);

/** One file found by {@link walkFiles}. */
export interface WalkedFile {
  /** Absolute path as walked (for a link, the link itself). */
  path: string;
  /** Real path of the file, inside the workspace. */
  realPath: string;
  /** `/`-separated path relative to the walk's start. */
  relFromStart: string;
}

/** Options for {@link walkFiles}. */
export interface WalkOptions {
  /** Real path of the workspace. */
  root: string;
  /** Real path of the folder to walk, inside `root`. */
  start: string;
  signal: AbortSignal;
  /** Stop after this many directory entries, so a huge tree cannot stall a turn. */
  maxEntries: number;
}

/** What a walk saw besides the files it yielded. */
export interface WalkStats {
  entries: number;
  /** True when `maxEntries` stopped the walk early. */
  truncated: boolean;
}

/**
 * Yields every regular file under `start` in name order, depth first,
 * skipping {@link SKIPPED_DIRS} and links that lead out of `root`.
 */
export async function* walkFiles(options: WalkOptions, stats: WalkStats): AsyncGenerator<WalkedFile> {
  const { root, start, signal, maxEntries } = options;
  const stack: string[] = [start];
  while (stack.length > 0) {
    if (signal.aborted) throw new SwitchboardError('ABORTED', 'The search was stopped.');
    const dir = stack.pop()!;
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue; // Unreadable folders are skipped, not fatal to the search.
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirs: string[] = [];
    for (const entry of entries) {
      if (++stats.entries > maxEntries) {
        stats.truncated = true;
        return;
      }
      const full = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) subdirs.push(full);
        continue;
      }
      let realPath = full;
      if (entry.isSymbolicLink()) {
        try {
          realPath = await realpath(full);
          if (!isInside(root, realPath) || !(await stat(realPath)).isFile()) continue;
        } catch {
          continue; // Dangling link.
        }
      } else if (!entry.isFile()) continue;
      yield { path: full, realPath, relFromStart: displayPath(start, full) };
    }
    // Reverse so the stack pops folders in name order.
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i]!);
  }
}
