/**
 * Vitest global setup: compiles `dist/` when it is missing or older than the
 * sources (scripts/build-if-stale.mjs, the same step `npm start` and
 * `npm install` take), so tests that start the compiled bot as a child
 * process never run yesterday's build, whether run by `npm test` or one file
 * at a time.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO } from './dist.js';

export default function setup(): void {
  execFileSync(process.execPath, [join(REPO, 'scripts', 'build-if-stale.mjs')], { stdio: 'inherit' });
}
