// The committed test-weakening lock file (`tasks/<name>.lock.json`): one zod schema, the source of truth.
import { z } from 'zod';

export const TEST_LOCK_VERSION = 1;

const StepEntry = z
  .object({
    title: z.string(),
    fingerprint: z.string().regex(/^[0-9a-f]{64}$/),
    assertions: z.array(z.string()),
    weakened: z.string().nullable(),
  })
  .strict();

export const TestLockSchema = z
  .object({
    $comment: z.string().optional(),
    lockVersion: z.literal(TEST_LOCK_VERSION),
    task: z.object({ id: z.string(), file: z.string(), contractSha256: z.string().regex(/^[0-9a-f]{64}$/) }).strict(),
    testFile: z.string(),
    verifier: z.string(),
    criteria: z.array(
      z.object({ id: z.string(), descriptionSha256: z.string().regex(/^[0-9a-f]{64}$/), steps: z.array(StepEntry) }).strict(),
    ),
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
