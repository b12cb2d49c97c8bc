// The committed test-weakening lock file (`tasks/<name>.lock.json`): one zod schema, the source of truth.
import * as z from 'zod';
import { ELENCHOS_DIR_NAME } from '../git/layout-names.js';

// 2: assertions read with the TypeScript parser (each with its path), what they read, the file's shared
// code, the verifier's other inputs, the config keys that decide a verdict, every line of a Kane step.
// 3: a Kane step's words after its `@verifies` ids and a `_test.md`'s preamble are locked; Playwright tests
// hold more page-writing calls, non-literal gotos, aliases of skip/fail and mutations of what assertions read.
// 4: where a test looks (a Playwright test's navigation, every navigating line of a Kane test) and the task's
// own verdict keys (`verification.variables`, `verification.verifier`) are locked.
export const TEST_LOCK_VERSION = 4;

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);

const StepEntry = z
  .object({
    title: z.string(),
    fingerprint: Sha256,
    assertions: z.array(z.string()),
    weakened: z.string().nullable(),
    reads: z.array(z.string()),
    bypass: z.array(z.string()),
    navigation: z.array(z.string()),
  })
  .strict();

export const TestLockSchema = z
  .object({
    $comment: z.string().optional(),
    lockVersion: z.literal(TEST_LOCK_VERSION),
    /** `keys`: sha256 of each of the task's own keys that decide a verdict (`verification.variables`…), like the config's. */
    task: z.object({ id: z.string(), file: z.string(), contractSha256: Sha256, keys: z.record(z.string(), Sha256) }).strict(),
    testFile: z.string(),
    verifier: z.string(),
    /** What every step shares: a spec's imports and top-level statements, a `_test.md`'s frontmatter (hashed) and preamble lines. */
    context: z.array(z.string()),
    /** Where the whole test looks (a Kane test's navigating lines, each with its step's heading); empty for Playwright. */
    navigation: z.array(z.string()),
    /** sha256 of each other file the verifier reads (spec imports, playwright.config, tsconfig, variables files). */
    inputs: z.record(z.string(), Sha256),
    /** sha256 of each config key that decides a verdict (canonical JSON of its value), and the file they came from. */
    config: z.object({ file: z.string(), keys: z.record(z.string(), Sha256) }).strict(),
    criteria: z.array(z.object({ id: z.string(), descriptionSha256: Sha256, steps: z.array(StepEntry) }).strict()),
  })
  .strict();

export type TestLock = z.infer<typeof TestLockSchema>;
export type LockedStep = z.infer<typeof StepEntry>;

/** `tasks/add-task.json` → `tasks/add-task.lock.json` (never matched as a task: see selectTasks). */
export function lockPathFor(taskLabel: string): string {
  return `${taskLabel.replace(/\.json$/i, '')}.lock.json`;
}

/** True for a lock file's name, so task globs such as `tasks/*.json` skip it. */
export function isLockFile(file: string): boolean {
  return /\.lock\.json$/i.test(file);
}

/** `tasks/add-task.lock.json` → `tasks/add-task.json` (the inverse of lockPathFor). */
export function taskOfLock(lockFile: string): string {
  return lockFile.replace(/\.lock\.json$/i, '.json');
}

/** The task locks among repository-relative `files`, sorted (none under a node_modules or `.elenchos/`). */
export function lockFilesAmong(files: readonly string[]): string[] {
  return files
    .filter((file) => isLockFile(file) && !file.split('/').includes('node_modules') && !file.startsWith(`${ELENCHOS_DIR_NAME}/`))
    .sort();
}
