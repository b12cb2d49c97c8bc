// The test-weakening lock (`elenchos lock`): which steps verify each criterion and what they assert, so
// that a commit which drops, skips or softens a verifying step under an unchanged criterion is caught.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { StepPrint } from '../contract/step-print.js';
import { lockPathFor, TEST_LOCK_VERSION, TestLockSchema, type LockedStep, type TestLock } from '../contract/test-lock-schema.js';
import { ValidationError } from '../errors.js';
import { readJsonFile } from '../util/json-file.js';
import { formatZodIssues } from '../util/zod-issues.js';
import { sha256 } from '../util/sha256.js';
import { canonicalJson } from './contract-lock.js';
import type { ResolvedTask } from './resolve-task.js';

export interface LockFinding {
  criterion: string;
  step: string;
  message: string;
}

export interface LockComparison {
  /** A criterion that did not change lost or weakened what verifies it: `verify` and `check` fail. */
  problems: LockFinding[];
  /** Changes a reviewer may want to see but that weaken nothing (new criteria, reworded steps). */
  notes: string[];
}

const COMMENT =
  'Written by `elenchos lock`. Commit it. `elenchos verify` and `check` fail when a step verifying an unchanged criterion is removed, skipped or loses an assertion; `elenchos lock --update` rewrites it (review its diff).';

/** The lock as the task and its test stand now. */
export async function buildTestLock(resolved: ResolvedTask): Promise<TestLock> {
  const prints = resolved.verifier.printSteps ? await resolved.verifier.printSteps(resolved.testFilePath) : [];
  const { $schema: _schema, ...contract } = resolved.task as typeof resolved.task & { $schema?: string };
  const headingOf = new Map(resolved.map.steps.map((s) => [s.index, s.heading]));
  return {
    $comment: COMMENT,
    lockVersion: TEST_LOCK_VERSION,
    task: { id: resolved.task.id, file: resolved.label, contractSha256: sha256(canonicalJson(contract)) },
    testFile: resolved.testFileLabel,
    verifier: resolved.verifierType,
    criteria: resolved.task.acceptanceCriteria.map((criterion) => ({
      id: criterion.id,
      descriptionSha256: sha256(criterion.description),
      steps: (resolved.map.byCriterion.get(criterion.id) ?? []).map((index) => lockedStep(headingOf.get(index) ?? '', prints)),
    })),
  };
}

/** The print of the step titled `title` (a title the verifier qualifies, `describe › test`, matches its last part). */
function lockedStep(title: string, prints: readonly StepPrint[]): LockedStep {
  const last = title.split(' › ').at(-1) ?? title;
  const print = prints.find((p) => p.title === title) ?? prints.find((p) => p.title === last);
  return print ? { ...print, title } : { title, fingerprint: sha256(title), assertions: [], weakened: null };
}

/** Every way `current` weakens `locked` under a criterion whose description did not change. */
export function compareTestLock(locked: TestLock, current: TestLock): LockComparison {
  const problems: LockFinding[] = [];
  const notes: string[] = [];
  const allNow = current.criteria.flatMap((c) => c.steps);
  for (const before of locked.criteria) {
    const now = current.criteria.find((c) => c.id.toUpperCase() === before.id.toUpperCase());
    if (!now) {
      notes.push(`${before.id} is no longer in the contract (the lock is stale)`);
      continue;
    }
    // A reworded criterion is a contract change a reviewer saw in the task file: its steps may change too.
    if (now.descriptionSha256 !== before.descriptionSha256) {
      notes.push(`${before.id} changed in the contract: its steps are not held to the lock until it is updated`);
      continue;
    }
    for (const step of before.steps) {
      const found = now.steps.find((s) => s.title === step.title);
      if (!found) {
        problems.push({ criterion: before.id, step: step.title, message: lostStep(before.id, step, now.steps, allNow) });
        continue;
      }
      if (found.weakened && !step.weakened) {
        problems.push({
          criterion: before.id,
          step: step.title,
          message: `"${step.title}" is now ${found.weakened}, so it can no longer prove ${before.id}`,
        });
      }
      for (const assertion of missingAssertions(step.assertions, found.assertions)) {
        problems.push({ criterion: before.id, step: step.title, message: `"${step.title}" lost the assertion \`${clip(assertion)}\`` });
      }
      if (found.fingerprint !== step.fingerprint && !problems.some((p) => p.step === step.title && p.criterion === before.id)) {
        notes.push(`${before.id}: "${step.title}" changed, every assertion kept`);
      }
    }
  }
  for (const criterion of current.criteria) {
    if (!locked.criteria.some((c) => c.id.toUpperCase() === criterion.id.toUpperCase()))
      notes.push(`${criterion.id} is not in the lock yet`);
  }
  return { problems, notes };
}

function lostStep(id: string, step: LockedStep, forCriterion: readonly LockedStep[], everywhere: readonly LockedStep[]): string {
  const renamed =
    forCriterion.find((s) => s.fingerprint === step.fingerprint) ?? everywhere.find((s) => s.fingerprint === step.fingerprint);
  if (renamed) return `"${step.title}" was renamed to "${renamed.title}" (a rename needs \`elenchos lock --update\`)`;
  if (everywhere.some((s) => s.title === step.title)) return `"${step.title}" no longer verifies ${id}`;
  return `lost its verifying step "${step.title}"`;
}

/** Locked assertions with no equal in `now` (counted, so a duplicated assertion removed once is seen). */
function missingAssertions(before: readonly string[], now: readonly string[]): string[] {
  const left = [...now];
  const missing: string[] = [];
  for (const assertion of before) {
    const at = left.indexOf(assertion);
    if (at < 0) missing.push(assertion);
    else left.splice(at, 1);
  }
  return missing;
}

function clip(text: string): string {
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** Reads the committed lock of a task, or null when it has none. */
export async function readTestLock(root: string, taskLabel: string): Promise<{ file: string; lock: TestLock } | null> {
  const file = lockPathFor(taskLabel);
  const absolute = path.join(root, file);
  const exists = await readFile(absolute).then(
    () => true,
    () => false,
  );
  if (!exists) return null;
  const { value } = await readJsonFile(absolute, file);
  const parsed = TestLockSchema.safeParse(value);
  if (!parsed.success) {
    const details = formatZodIssues(file, parsed.error.issues);
    throw new ValidationError(`${file}: not a valid Elenchos lock; regenerate it with elenchos lock --update ${taskLabel}`, { details });
  }
  return { file, lock: parsed.data };
}

/** Writes the lock as JSON with a trailing newline (stable key order: the diff is for a reviewer). */
export async function writeTestLock(root: string, file: string, lock: TestLock): Promise<void> {
  await writeFile(path.join(root, file), `${JSON.stringify(lock, null, 2)}\n`);
}
