import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Child-process tests start the compiled bot: build dist/ first when it is stale.
    globalSetup: ['test/helpers/build-dist.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // Vitest's default is one worker per core less one: a single worker on two
    // cores, with the CPU idle while tests wait on fakes, child processes and
    // timers. Three keep both cores busy (test/adapters: 362 s with one
    // isolated worker, 49 s with three sharing modules).
    maxWorkers: 3,
    // One module graph per worker instead of one per file: most files import the
    // same bot, SDKs and fakes, and evaluating them again for every file was most
    // of the suite's time (test/bot: 74 s isolated, 23 s shared, on 2 busy cores).
    // Every test starts its own servers, stores and temp folders and closes them,
    // so nothing a file leaves behind is another file's input.
    isolate: false,
    reporters: ['default', 'json'],
    outputFile: { json: '.vitest-results.json' },
  },
});
