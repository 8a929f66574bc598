/**
 * Small file-system helpers shared by the stores: atomic whole-file writes,
 * moving a file aside byte for byte, a bounded read pool and per-key write
 * ordering. Store files are private to the bot's user (0600, folders 0700)
 * and never opened through a symbolic link: a link planted where a session
 * file belongs is refused, not followed, so its target is never read,
 * truncated or overwritten.
 */
import { constants } from 'node:fs';
import { access, type FileHandle, lstat, open, rename } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { SwitchboardError } from '../errors.js';
import type { Logger } from '../logger.js';

/** Mode of every file a store creates: the bot's user only. */
export const PRIVATE_FILE_MODE = 0o600;
/** Mode of every folder a store creates. */
export const PRIVATE_DIR_MODE = 0o700;

/** The error for a store file that is a symbolic link. */
export function symlinkRefused(path: string, cause?: unknown): SwitchboardError {
  return new SwitchboardError(
    'SESSION_CORRUPT',
    `${path} is a symbolic link; the store never follows one (it could lead to any file). Remove the link or move the real file into its place.`,
    { cause, detail: { path } },
  );
}

/**
 * Opens `path` without following a symbolic link in its last component,
 * creating it 0600 when `flags` include O_CREAT.
 *
 * @throws SwitchboardError `SESSION_CORRUPT` when `path` is a symbolic link.
 */
export async function openNoFollow(path: string, flags: number): Promise<FileHandle> {
  try {
    return await open(path, flags | constants.O_NOFOLLOW, PRIVATE_FILE_MODE);
  } catch (err) {
    if (errorCode(err) === 'ELOOP') throw symlinkRefused(path, err);
    throw err;
  }
}

/**
 * Writes `data` to a temp file beside `path` (0600, never through a link),
 * then renames it over `path`. A symbolic link at `path` is refused rather
 * than replaced.
 */
export async function atomicWrite(path: string, data: string | Uint8Array): Promise<void> {
  const isLink = await lstat(path).then(
    (info) => info.isSymbolicLink(),
    () => false,
  );
  if (isLink) throw symlinkRefused(path);
  const temp = join(dirname(path), `.${basename(path)}.tmp`);
  const handle = await openNoFollow(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC);
  try {
    await handle.writeFile(data);
  } finally {
    await handle.close();
  }
  await rename(temp, path);
}

/** Node's error code (`ENOENT`, ...) of a thrown value, if it has one. */
export function errorCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : undefined;
}

/** An ISO time with no colons (file names on every OS): `2026-11-29T234841.123Z`. */
export function fileTimestamp(ms: number): string {
  return new Date(ms).toISOString().replaceAll(':', '');
}

/**
 * Renames `path` to `<path>.corrupt-<time>` (adding `-2`, `-3`... if that name
 * is taken) and returns the new path. A rename keeps the bytes exactly.
 */
export async function moveAside(path: string, nowMs: number): Promise<string> {
  const base = `${path}.corrupt-${fileTimestamp(nowMs)}`;
  let target = base;
  for (let n = 2; await exists(target); n++) target = `${base}-${n}`;
  await rename(path, target);
  return target;
}

/** True when something exists at `path`. */
export async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/** Maps `items` through `fn` with at most `limit` calls in flight; keeps order. */
export async function mapPool<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * Turns a failed write into `STORE_WRITE_FAILED` (cause attached) and logs
 * it: a save that fails must be seen, never swallowed. SwitchboardErrors
 * raised on purpose (corrupt, missing) pass through unchanged.
 */
export function writeFailure(logger: Logger, err: unknown, what: string, path: string): SwitchboardError {
  if (err instanceof SwitchboardError) return err;
  const code = errorCode(err);
  const error = new SwitchboardError(
    'STORE_WRITE_FAILED',
    `Could not save ${what} to ${path}${code ? ` (${code})` : ''}: check that the directory exists, is writable and the disk is not full.`,
    { cause: err, detail: { path, ...(code ? { errno: code } : {}) } },
  );
  logger.error({ err, path }, `store write failed: ${what}`);
  return error;
}

/**
 * Runs tasks one after another per key (so two writes to one session never
 * interleave) and lets callers wait for everything pending.
 */
export class WriteChains {
  readonly #tails = new Map<string, Promise<void>>();

  /** Queues `task` after every earlier task for `key`; its own result or error is returned. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const result = previous.then(task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }

  /** Resolves when the tasks queued for `key` so far have settled. */
  async idle(key: string): Promise<void> {
    await this.#tails.get(key);
  }

  /** Resolves when the tasks queued before this call have settled (later ones are not awaited). */
  async settled(): Promise<void> {
    await Promise.all([...this.#tails.values()]);
  }

  /** Resolves when no task is left, including tasks queued while waiting. */
  async flush(): Promise<void> {
    while (this.#tails.size > 0) await Promise.all([...this.#tails.values()]);
  }
}
