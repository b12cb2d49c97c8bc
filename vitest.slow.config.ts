import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/longest-first.js';
import { SLOW_FILES } from './test/slow-files.js';

// The slow files (`npm run test:slow`): many real browser runs and CLI runs each, listed in
// test/slow-files.ts, which `vitest.config.ts` excludes so that `npm test` stays under 5 minutes.
// `.ci/run` runs it after `npm test`. Same limits and scheduling as `npm test`.
export default defineConfig({
  test: {
    include: [...SLOW_FILES],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    maxWorkers: 2,
    sequence: { sequencer: LongestFirstSequencer },
  },
});
