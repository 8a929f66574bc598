/**
 * Reading and writing a session's small record file (`<id>.json`) with lowdb.
 * Reads use the raw text so that `null`, `0` or an empty file are reported
 * as `corrupt` rather than mistaken for a missing file (lowdb's `read()`
 * keeps its defaults for any falsy value).
 */
import { readFile as readFileCallback } from 'node:fs';
import { promisify } from 'node:util';
import { Low } from 'lowdb';
import { JSONFile } from 'lowdb/node';
import { errorCode } from './fs-util.js';
import { classifyMetaText, type StoredMeta } from './schema.js';
import type { StoreOutcome } from './types.js';

/**
 * Node 20's callback readFile reads a small file in one go; the promise
 * version takes several round trips and made list() of 10,000 records about
 * 2.5 times slower.
 */
const readFile = promisify(readFileCallback);

/** Reads and classifies the record at `path` for session `id`. */
export async function readRecord(path: string, id: string): Promise<StoreOutcome<StoredMeta>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = errorCode(err);
    // ENOTDIR: the store's directory is not there as a directory, so neither is the record.
    if (code === 'ENOENT' || code === 'ENOTDIR') return { status: 'missing' };
    return { status: 'corrupt', reason: `record cannot be read (${code ?? String(err)})`, path };
  }
  return classifyMetaText(text, id, path);
}

/** Writes a record atomically (lowdb's writer: temp file, then rename). */
export async function writeRecord(path: string, record: StoredMeta): Promise<void> {
  const db = new Low<StoredMeta>(new JSONFile<StoredMeta>(path), record);
  await db.write();
}
