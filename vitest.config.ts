import { configDefaults, defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/longest-first.js';
import { SLOW_FILES, TAGS } from './test/suites.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The real-stack suite installs real apps and takes minutes: `npm run test:stacks` (vitest.stacks.config.ts).
    // Files tagged `// @module-tag slow` run in `npm run test:slow` (vitest.slow.config.ts; test/suites.ts).
    exclude: [...configDefaults.exclude, 'test/stacks/**', ...SLOW_FILES],
    tags: TAGS,
    // The files of a worker share the modules they import (Elenchos's own, commander, zod, the TypeScript
    // parser…): loaded once per worker instead of once per file, which was a tenth of the suite's CPU. A
    // file's own state is still its own (each test file is a module of its own), and the helpers' per-file
    // hooks are registered by test/helpers/each-file.ts, which runs before every file.
    isolate: false,
    setupFiles: ['test/helpers/each-file.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // End-to-end tests spawn real git, apps and fake tools; two cores cannot take more.
    maxWorkers: 2,
    // Longest file first (test/durations.json when vitest has no results cache, as in CI), so the two
    // workers end together instead of one running a slow browser file alone at the end.
    sequence: { sequencer: LongestFirstSequencer },
  },
});
