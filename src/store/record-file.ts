/**
 * Reading and writing a session's small record file (`<id>.json`) with lowdb.
 * Reads use the raw text so that `null`, `0` or an empty file are reported
 * as `corrupt` rather than mistaken for a missing file (lowdb's `read()`
 * keeps its defaults for any falsy value).
 */
import { constants, readFile as readFileCallback } from 'node:fs';
import { promisify } from 'node:util';
import { atomicWrite, errorCode } from './fs-util.js';
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
    // O_NOFOLLOW: a record replaced by a link to another file is refused, not read.
    // (Node takes numeric flags here; the promisified typing only lists strings.)
    const flag = (constants.O_RDONLY | constants.O_NOFOLLOW) as unknown as string;
    text = await readFile(path, { encoding: 'utf8', flag });
  } catch (err) {
    const code = errorCode(err);
    if (code === 'ELOOP') {
      return { status: 'corrupt', reason: 'record is a symbolic link (refused, not followed)', path };
    }
    // ENOTDIR: the store's directory is not there as a directory, so neither is the record.
    if (code === 'ENOENT' || code === 'ENOTDIR') return { status: 'missing' };
    return { status: 'corrupt', reason: `record cannot be read (${code ?? String(err)})`, path };
  }
  return classifyMetaText(text, id, path);
}

/**
 * Writes a record atomically (temp file, then rename), in lowdb's JSONFile
 * layout. lowdb's own writer cannot be used here: it follows a symbolic link
 * at the temp path and creates files readable by everyone.
 */
export async function writeRecord(path: string, record: StoredMeta): Promise<void> {
  await atomicWrite(path, JSON.stringify(record, null, 2));
}
