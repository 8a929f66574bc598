/**
 * A session's messages as JSONL: a header line naming the file's epoch, then
 * one message per line. Turns append; compaction writes a new file (new
 * epoch) atomically. The record's `messageCount` says how many lines are
 * committed, so lines past it (a crash between the append and the record
 * write) are ignored and trimmed on the next write.
 */

import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { SwitchboardError } from '../errors.js';
import type { HistoryMessage } from '../vocabulary.js';
import { atomicWrite, errorCode, openNoFollow } from './fs-util.js';
import { parseMessageLine } from './schema.js';

const HEADER_TYPE = 'switchboard-messages';
const NEWLINE = 0x0a;

/** A fresh epoch for a new messages file. */
export function newEpoch(): string {
  return randomBytes(6).toString('hex');
}

/** The header line (with its newline) of a messages file of `epoch`. */
export function headerLine(epoch: string): string {
  return `${JSON.stringify({ type: HEADER_TYPE, version: 1, epoch })}\n`;
}

/** Serializes messages as JSONL lines, each ending in a newline. */
export function messageLines(messages: readonly HistoryMessage[]): string {
  let out = '';
  for (const m of messages) out += `${JSON.stringify(m)}\n`;
  return out;
}

/** What reading a messages file found. */
export type MessagesScan =
  | {
      status: 'ok';
      messages: HistoryMessage[];
      /** Bytes of the header and the committed lines: where the next append goes. */
      committedBytes: number;
      epoch: string | undefined;
      /** Lines (complete or torn) past the committed ones, left by a crash. */
      uncommittedLines: number;
      /**
       * The file belongs to a newer epoch than the record (a compaction
       * renamed its file but died before writing the record): every complete
       * line is taken as committed.
       */
      rolledForward: boolean;
    }
  | { status: 'corrupt'; reason: string };

/**
 * Reads the committed messages of a file whose record says `expectedCount`
 * messages of `expectedEpoch`.
 */
export async function scanMessages(
  path: string,
  expectedCount: number,
  expectedEpoch: string | undefined,
): Promise<MessagesScan> {
  let buf: Buffer;
  try {
    buf = await readFile(path, { flag: constants.O_RDONLY | constants.O_NOFOLLOW });
  } catch (err) {
    if (errorCode(err) === 'ELOOP') {
      return { status: 'corrupt', reason: 'messages file is a symbolic link (refused, not followed)' };
    }
    if (errorCode(err) === 'ENOENT' && expectedCount === 0) {
      return {
        status: 'ok',
        messages: [],
        committedBytes: 0,
        epoch: undefined,
        uncommittedLines: 0,
        rolledForward: false,
      };
    }
    const why = errorCode(err) === 'ENOENT' ? 'is missing' : `cannot be read (${errorCode(err) ?? err})`;
    return { status: 'corrupt', reason: `messages file ${why} but the record counts ${expectedCount}` };
  }
  const headerEnd = buf.indexOf(NEWLINE);
  if (headerEnd < 0) return { status: 'corrupt', reason: 'messages file has no complete header line' };
  const epoch = parseHeader(buf.toString('utf8', 0, headerEnd));
  if (epoch === undefined) return { status: 'corrupt', reason: 'messages file header is damaged' };
  const rolledForward = expectedEpoch !== undefined && epoch !== expectedEpoch;
  const want = rolledForward ? Number.POSITIVE_INFINITY : expectedCount;

  const messages: HistoryMessage[] = [];
  let pos = headerEnd + 1;
  while (messages.length < want) {
    const end = buf.indexOf(NEWLINE, pos);
    if (end < 0) break;
    const message = parseMessageLine(buf.toString('utf8', pos, end));
    if (message === undefined) {
      if (rolledForward)
        return { status: 'corrupt', reason: `message line ${messages.length + 1} is damaged` };
      return {
        status: 'corrupt',
        reason: `message ${messages.length + 1} of ${expectedCount} committed is damaged`,
      };
    }
    messages.push(message);
    pos = end + 1;
  }
  if (!rolledForward && messages.length < expectedCount) {
    return {
      status: 'corrupt',
      reason: `messages file holds ${messages.length} of the ${expectedCount} committed messages (truncated)`,
    };
  }
  return {
    status: 'ok',
    messages,
    committedBytes: pos,
    epoch,
    uncommittedLines: countLines(buf, pos),
    rolledForward,
  };
}

function parseHeader(text: string): string | undefined {
  try {
    const data = JSON.parse(text) as { type?: unknown; epoch?: unknown };
    if (data?.type === HEADER_TYPE && typeof data.epoch === 'string') return data.epoch;
  } catch {
    // falls through: a damaged header
  }
  return undefined;
}

function countLines(buf: Buffer, from: number): number {
  let lines = 0;
  let pos = from;
  while (pos < buf.length) {
    lines++;
    const end = buf.indexOf(NEWLINE, pos);
    if (end < 0) break;
    pos = end + 1;
  }
  return lines;
}

/**
 * Appends `lines` after the first `committedBytes` of the file, first
 * trimming whatever a crash left past them (writing the header when the file
 * is new). Returns the new committed length. Only the new bytes are written.
 */
export async function appendCommitted(
  path: string,
  committedBytes: number,
  epoch: string,
  lines: string,
): Promise<number> {
  // One descriptor, opened without following a link, for the check, the trim and the append.
  const handle = await openNoFollow(path, constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND);
  try {
    const size = (await handle.stat()).size;
    if (size > committedBytes) await handle.truncate(committedBytes);
    else if (size < committedBytes) {
      throw new SwitchboardError(
        'SESSION_CORRUPT',
        `The messages file ${path} is ${size} bytes, shorter than its ${committedBytes} committed bytes: it was damaged outside switchboard; move it aside and start a new session.`,
        { detail: { path } },
      );
    }
    const payload = committedBytes === 0 ? headerLine(epoch) + lines : lines;
    await handle.appendFile(payload);
    return committedBytes + Buffer.byteLength(payload);
  } finally {
    await handle.close();
  }
}

/** Writes a whole new messages file of `epoch` atomically; returns its length. */
export async function writeMessagesFile(
  path: string,
  epoch: string,
  messages: readonly HistoryMessage[],
): Promise<number> {
  const data = Buffer.from(headerLine(epoch) + messageLines(messages));
  await atomicWrite(path, data);
  return data.length;
}
