import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/longest-first.js';
import { SLOW_FILES, TAGS } from './test/suites.js';

// The slow files (`npm run test:slow`): the test files tagged `// @module-tag slow` (test/suites.ts), which
// `vitest.config.ts` leaves out. `.ci/run` runs it after `npm test`. Same limits, module sharing and
// scheduling as `npm test`, with one more worker: these files wait on browsers, npm and git children, and two
// workers left a quarter of two cores idle (CPU 155%; with three, 175% and 459 s instead of 538 s).
export default defineConfig({
  test: {
    include: [...SLOW_FILES],
    tags: TAGS,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // As in `npm test`: the files of a worker share the modules they import (vitest.config.ts says why).
    isolate: false,
    setupFiles: ['test/helpers/each-file.ts'],
    maxWorkers: 3,
    sequence: { sequencer: LongestFirstSequencer },
  },
});
