/**
 * An append-only JSONL journal for one kind of bot state. Each change appends
 * one line, so a write costs as much as the change rather than the whole
 * state. Appends that arrive while one is on the way go out together in the
 * next single append (in order). When the file holds far more lines than the
 * live state, it is rewritten from memory (temp file + rename), queued behind
 * the appends so the caller of a change never waits for it.
 */
import { appendFile, readFile } from 'node:fs/promises';
import { atomicWrite, errorCode, PRIVATE_FILE_MODE } from './fs-util.js';

/** What {@link readJournal} found in a journal file. */
export type JournalRead =
  | { status: 'missing' }
  | { status: 'ok'; lines: number; trimmed: number }
  | { status: 'damaged'; reason: string };

/**
 * Replays the journal at `path` line by line through `apply` (false: the line
 * is not one of ours). A bad last line with no newline after it is what a
 * crash mid-append leaves: it is ignored and trimmed from the file (`trimmed`
 * bytes). Any other bad line means the file was damaged some other way;
 * nothing is changed and the caller decides.
 */
export async function readJournal(path: string, apply: (value: unknown) => boolean): Promise<JournalRead> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return { status: 'missing' };
    if (errorCode(err) === 'EISDIR') return { status: 'damaged', reason: 'a directory, not a file' };
    throw err;
  }
  const segments = text.split('\n');
  // Every append ends in a newline, so only an unterminated last segment can be torn.
  const last = segments.length - 1;
  const good: string[] = [];
  let trimmed = 0;
  for (let i = 0; i <= last; i++) {
    const segment = segments[i] as string;
    if (segment === '') continue;
    if (parseAndApply(segment, apply)) {
      good.push(segment);
      continue;
    }
    if (i === last) {
      trimmed = Buffer.byteLength(segment);
      break;
    }
    return { status: 'damaged', reason: `line ${i + 1} is not a bot state entry` };
  }
  const clean = good.map((line) => `${line}\n`).join('');
  // A torn tail (or a missing final newline) would corrupt the next append: rewrite once.
  if (clean !== text) await atomicWrite(path, clean);
  return { status: 'ok', lines: good.length, trimmed };
}

function parseAndApply(line: string, apply: (value: unknown) => boolean): boolean {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return false;
  }
  return apply(value);
}

/** Options of a {@link Journal}. */
export interface JournalOptions {
  /** The live state as journal lines (each without its newline), for a rewrite. */
  snapshot: () => string[];
  /** How many entries the live state holds now. */
  liveCount: () => number;
  /** Lines already in the file when it was opened. */
  lines?: number;
  /** Never rewrite a journal shorter than this (default 256 lines). */
  minCompactLines?: number;
}

/** One journal file with ordered, batched appends and occasional compaction. */
export class Journal {
  readonly path: string;
  readonly #options: JournalOptions;
  #lines: number;
  #tail: Promise<void> = Promise.resolve();
  #buffer: string[] = [];
  #batch: Promise<void> | undefined;
  #compactQueued = false;
  /** Set after a failed append: the file may end in a partial line, so the next write rewrites it whole. */
  #rewriteNext = false;

  constructor(path: string, options: JournalOptions) {
    this.path = path;
    this.#options = options;
    this.#lines = options.lines ?? 0;
  }

  /** Lines in the file now (after the writes that have finished). */
  get lines(): number {
    return this.#lines;
  }

  /** Appends `line` (one JSON value, no newline); resolves once it is in the file. */
  append(line: string): Promise<void> {
    this.#buffer.push(line);
    if (!this.#batch) {
      this.#batch = this.#enqueue(async () => {
        const lines = this.#buffer;
        this.#buffer = [];
        this.#batch = undefined;
        if (this.#rewriteNext) {
          // The snapshot already holds these changes: memory is updated before the write.
          await this.#rewrite();
          return;
        }
        try {
          await appendFile(this.path, lines.map((l) => `${l}\n`).join(''), { mode: PRIVATE_FILE_MODE });
        } catch (err) {
          this.#rewriteNext = true;
          throw err;
        }
        this.#lines += lines.length;
        this.#maybeCompact();
      });
    }
    return this.#batch;
  }

  /** Rewrites the whole file from the live state now (used when migrating an old file). */
  rewrite(): Promise<void> {
    return this.#enqueue(() => this.#rewrite());
  }

  /** Resolves when every write queued so far (and any compaction they queued) has settled. */
  async idle(): Promise<void> {
    let tail: Promise<void>;
    do {
      tail = this.#tail;
      await tail;
    } while (tail !== this.#tail);
  }

  #maybeCompact(): void {
    const min = this.#options.minCompactLines ?? 256;
    if (this.#compactQueued || this.#lines < min || this.#lines <= 2 * this.#options.liveCount()) return;
    this.#compactQueued = true;
    // Queued behind the current batch; a failure leaves the longer journal, which is still correct.
    void this.#enqueue(async () => {
      this.#compactQueued = false;
      await this.#rewrite();
    }).catch(() => {
      this.#rewriteNext = true;
    });
  }

  async #rewrite(): Promise<void> {
    const lines = this.#options.snapshot();
    await atomicWrite(this.path, lines.map((l) => `${l}\n`).join(''));
    this.#lines = lines.length;
    this.#rewriteNext = false;
  }

  #enqueue(task: () => Promise<void>): Promise<void> {
    const result = this.#tail.then(task);
    this.#tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}
