import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/longest-first.js';

// The real-stack suite (`npm run test:stacks`): real apps installed from the npm registry, run through the
// whole loop in a real Chromium. Slow (minutes), so it is not part of `npm test`; `.ci/run` runs it after.
export default defineConfig({
  test: {
    include: ['test/stacks/**/*.test.ts'],
    // Elenchos packed once for every scaffold (test/stacks/scaffold.ts).
    globalSetup: ['test/stacks/global-setup.ts'],
    testTimeout: 600_000,
    // afterAll removes each scaffold's folder: its node_modules, the setup cache's copy and the pooled
    // worktree, a few hundred MB of small files, which took over 120 s on two busy cores.
    hookTimeout: 600_000,
    // Each file is one stack: a dev server, a browser and npm at once; two cores take two of them.
    maxWorkers: 2,
    // Angular alone takes over three minutes: started last, it would run alone at the end.
    sequence: { sequencer: LongestFirstSequencer },
  },
});
