/**
 * The compiled bot that child-process tests start: `dist/`, as `npm start`,
 * `npx switchboard`, systemd and the image run it. Compiled JavaScript starts
 * in a fraction of the time a TypeScript loader needs, which is what keeps
 * those tests' start-up inside their limits on a busy machine. The global
 * setup (test/helpers/build-dist.ts) builds it first when it is stale.
 */
import { join, resolve } from 'node:path';

/** The repository's root folder. */
export const REPO = resolve(import.meta.dirname, '..', '..');

/** `dist/src/main.js`: the ready bot. */
export const BUILT_MAIN = join(REPO, 'dist', 'src', 'main.js');

/** `dist/adapters/discord/start-sharded.js`: the Discord ShardingManager entry (`npm run start:sharded`). */
export const BUILT_SHARD = join(REPO, 'dist', 'adapters', 'discord', 'start-sharded.js');
