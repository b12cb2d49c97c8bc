import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // End-to-end tests spawn real git, apps and fake tools; two cores cannot take more.
    maxWorkers: 2,
  },
});
