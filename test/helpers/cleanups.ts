/**
 * What a test opened, closed after it, newest first: servers, apps and
 * temporary folders. Call {@link useCleanups} once at the top of a test file.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

/** Registered closers of one test file. */
export interface Cleanups {
  /** Adds closers, run after the test in the reverse order of adding. */
  push(...closers: Array<() => unknown>): void;
  /** A new temporary folder `switchboard-<prefix>-…`, removed after the test. */
  tempRoot(prefix: string): Promise<string>;
}

/** Registers an afterEach hook that runs every closer added during the test, newest first. */
export function useCleanups(): Cleanups {
  const closers: Array<() => unknown> = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });
  return {
    push: (...more) => {
      closers.push(...more);
    },
    async tempRoot(prefix) {
      const root = await mkdtemp(join(tmpdir(), `switchboard-${prefix}-`));
      closers.push(() => rm(root, { recursive: true, force: true }));
      return root;
    },
  };
}
