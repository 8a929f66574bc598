/**
 * What is in a session directory: which names are session records, which
 * are messages or logs without a record, and which are not sessions at all.
 */
import { readdir } from 'node:fs/promises';
import { errorCode } from './fs-util.js';
import { validateSessionId } from './ids.js';

/** The session files found in a store's directories. */
export interface SessionDirScan {
  /** Ids with a record file. */
  records: string[];
  /** Ids with a messages file or an event log (with or without a record). */
  others: Set<string>;
  /** Names that are neither sessions, temp files nor files set aside. */
  strange: string[];
}

const MESSAGES = '.messages.jsonl';

/** Lists `dir` (and the project's `logsDir`); a directory not there yet is empty. */
export async function scanSessionDir(dir: string, logsDir?: string): Promise<SessionDirScan> {
  const scan: SessionDirScan = { records: [], others: new Set(), strange: [] };
  for (const name of await names(dir)) {
    if (name.startsWith('.') || name.includes('.corrupt-')) continue; // temp files, files set aside
    const id = name.endsWith(MESSAGES)
      ? name.slice(0, -MESSAGES.length)
      : name.endsWith('.json')
        ? name.slice(0, -'.json'.length)
        : undefined;
    if (id === undefined || !isSessionId(id)) scan.strange.push(name);
    else if (name.endsWith(MESSAGES)) scan.others.add(id);
    else scan.records.push(id);
  }
  if (logsDir !== undefined) {
    for (const name of await names(logsDir)) {
      const id = name.endsWith('.jsonl') ? name.slice(0, -'.jsonl'.length) : '';
      if (isSessionId(id)) scan.others.add(id);
    }
  }
  return scan;
}

async function names(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return [];
    throw err;
  }
}

function isSessionId(id: string): boolean {
  try {
    validateSessionId(id);
    return true;
  } catch {
    return false;
  }
}
