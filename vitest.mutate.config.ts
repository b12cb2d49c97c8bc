// The fast tests that judge the verdict core (the ones that cover stryker.config.json's `mutate` files), for
// `npm run mutate` (Stryker): unit tests, and the adapter tests that replay Kane streams, run the command
// verifier fixture or classify hand-built Playwright reports. No end-to-end test (they run the built CLI,
// which mutants never reach) and no real browser.
import { defineConfig } from 'vitest/config';

// MUTATE_TESTS=test/unit/a.test.ts,test/unit/b.test.ts narrows the run to those files (one source file at a
// time on a shared machine: `MUTATE_TESTS=… npx stryker run --mutate src/x.ts`).
const narrowed = process.env.MUTATE_TESTS?.split(',').filter(Boolean);

export default defineConfig({
  test: {
    include: narrowed ?? [
      'test/unit/attempt-status.test.ts',
      'test/unit/classify-command.test.ts',
      'test/unit/command-protocol.test.ts',
      'test/unit/contract-lock.test.ts',
      'test/unit/criteria-map.test.ts',
      'test/unit/decide.test.ts',
      'test/unit/duplicate-keys.test.ts',
      'test/unit/evidence-redact.test.ts',
      'test/unit/git-snapshot.test.ts',
      'test/unit/kane-attribute-failure.test.ts',
      'test/unit/kane-classify-precise.test.ts',
      'test/unit/kane-classify.test.ts',
      'test/unit/kane-stream-checks.test.ts',
      'test/unit/kane-stream-order.test.ts',
      'test/unit/kane-stream-state.test.ts',
      'test/unit/kane-values.test.ts',
      'test/unit/path-prefix.test.ts',
      'test/unit/playwright-classify.test.ts',
      'test/unit/playwright-error-facts.test.ts',
      'test/unit/playwright-test-outcome.test.ts',
      'test/unit/redact-details.test.ts',
      'test/unit/redact-full-disk.test.ts',
      'test/unit/redact-long-line.test.ts',
      'test/unit/snapshot-diff.test.ts',
      'test/adapters/command-verifier.test.ts',
      'test/adapters/kane-credits.test.ts',
      'test/adapters/kane-malformed.test.ts',
      'test/adapters/playwright-spec.test.ts',
    ],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    maxWorkers: 1,
  },
});
