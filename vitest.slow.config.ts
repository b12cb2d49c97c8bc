import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/longest-first.js';
import { SLOW_FILES, TAGS } from './test/suites.js';

// The slow files (`npm run test:slow`): the test files tagged `// @module-tag slow` (test/suites.ts), which
// `vitest.config.ts` leaves out. `.ci/run` runs it after `npm test`. Same limits and scheduling as `npm test`.
export default defineConfig({
  test: {
    include: [...SLOW_FILES],
    tags: TAGS,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    maxWorkers: 2,
    sequence: { sequencer: LongestFirstSequencer },
  },
});
