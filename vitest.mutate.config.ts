// The fast tests that judge the verdict core (the ones that cover stryker.config.json's `mutate` files), for
// `npm run mutate` (Stryker): unit tests, and the adapter tests that replay Kane streams, run the command
// verifier fixture or classify hand-built Playwright reports. No end-to-end test (they run the built CLI,
// which mutants never reach) and no real browser.
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// MUTATE_TESTS=test/unit/a.test.ts,test/unit/b.test.ts narrows the run to those files (one source file at a
// time on a shared machine: `MUTATE_TESTS=… npx stryker run --mutate src/x.ts`).
const narrowed = process.env.MUTATE_TESTS?.split(',').filter(Boolean);

const include = narrowed ?? [
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
  'test/unit/loop-accounting.test.ts',
  'test/unit/path-prefix.test.ts',
  'test/unit/playwright-classify.test.ts',
  'test/unit/playwright-error-facts.test.ts',
  'test/unit/playwright-test-outcome.test.ts',
  'test/unit/redact-details.test.ts',
  'test/unit/snapshot-diff.test.ts',
  'test/adapters/command-verifier.test.ts',
  'test/adapters/kane-credits.test.ts',
  'test/adapters/kane-malformed.test.ts',
  'test/adapters/playwright-spec.test.ts',
  // Slow (a real tmpfs, lines of 3 and 16 MB): last.
  'test/unit/redact-full-disk.test.ts',
  'test/unit/redact-long-line.test.ts',
];

/**
 * Files in the order given (MUTATE_TESTS, or the list above), not vitest's longest-first: Stryker stops at a
 * mutant's first failing test, so the fast files, listed first, kill most mutants before a slow one (a 16 MB
 * line, a full tmpfs) has to run.
 */
class GivenOrder extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => include.findIndex((f) => spec.moduleId.endsWith(f));
    return [...files].sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    include,
    sequence: { sequencer: GivenOrder },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    maxWorkers: 1,
  },
});
