// The test-weakening lock (`elenchos lock`): which steps verify each criterion and what they assert, so
// that a commit which drops, skips or softens a verifying step under an unchanged criterion is caught.
import { lstat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { normaliseText, type StepPrint } from '../../contract/step-print.js';
import { lockPathFor, TEST_LOCK_VERSION, TestLockSchema, type LockedStep, type TestLock } from '../../contract/test-lock-schema.js';
import { ValidationError } from '../../errors.js';
import { readJsonFile } from '../../util/json-file.js';
import { TEST_FILE_LIMIT, readRegularFile } from '../../util/regular-file.js';
import { formatZodIssues } from '../../util/zod-issues.js';
import { sha256 } from '../../util/sha256.js';
import { canonicalJson } from './contract-lock.js';
import { loadConfig } from '../../config/load-config.js';
import { configKeyHashes } from './lock-config.js';
import { findVerifierInputs } from './verifier-inputs.js';
import type { ResolvedTask } from '../resolve-task.js';

export { compareTestLock, type LockComparison, type LockFinding } from './test-lock-compare.js';

export interface BuildTestLockOptions {
  root: string;
  /** `--config`: the file whose verdict keys are locked (default elenchos.config.json). */
  configFile?: string;
}

const COMMENT =
  'Written by `elenchos lock`. Commit it. `elenchos verify` and `check` fail when a step verifying an unchanged criterion is removed, skipped or loses an assertion, when what an assertion reads or the path to it changes, when the code the test file shares, a file the verifier reads or a config key that decides a verdict changes; `elenchos lock --update` rewrites it (review its diff).';

/** The lock as the task, its test, the verifier's other inputs and the config stand now. */
export async function buildTestLock(resolved: ResolvedTask, options: BuildTestLockOptions): Promise<TestLock> {
  const printed = resolved.verifier.printSteps ? await resolved.verifier.printSteps(resolved.testFilePath) : { context: [], steps: [] };
  const { $schema: _schema, ...contract } = resolved.task as typeof resolved.task & { $schema?: string };
  const headingOf = new Map(resolved.map.steps.map((s) => [s.index, s.heading]));
  // The config file's own values, never the environment's or the flags': a lock must hold on every machine.
  const loaded = await loadConfig({ root: options.root, file: options.configFile, env: {} });
  const inputs: Record<string, string> = {};
  for (const file of (await findVerifierInputs(options.root, resolved, loaded.config)).files) {
    inputs[file] = sha256(await readRegularFile(path.join(options.root, file), { label: file, maxBytes: TEST_FILE_LIMIT }));
  }
  return {
    $comment: COMMENT,
    lockVersion: TEST_LOCK_VERSION,
    task: {
      id: resolved.task.id,
      file: resolved.label,
      contractSha256: sha256(canonicalJson(contract)),
      keys: taskKeyHashes(resolved.task),
    },
    testFile: resolved.testFileLabel,
    verifier: resolved.verifierType,
    context: printed.context,
    navigation: printed.navigation ?? [],
    inputs,
    config: { file: loaded.label, keys: configKeyHashes(loaded.config) },
    criteria: resolved.task.acceptanceCriteria.map((criterion) => ({
      id: criterion.id,
      descriptionSha256: descriptionHash(criterion.description),
      steps: (resolved.map.byCriterion.get(criterion.id) ?? []).map((index) => lockedStep(headingOf.get(index) ?? '', printed.steps)),
    })),
  };
}

/**
 * The task's own keys that decide a verdict, hashed like the config's: `verification.variables` (what a step
 * types and checks: the config's `verifier.variables` is locked, and a task's own win over it) and
 * `verification.verifier` (which verifier reads the test at all).
 */
export const TASK_VERDICT_KEYS = ['verification.variables', 'verification.verifier'] as const;

/** sha256 of each of the task's verdict keys' values (`null` when unset). */
export function taskKeyHashes(task: ResolvedTask['task']): Record<string, string> {
  const verification = task.verification as Record<string, unknown>;
  return Object.fromEntries(TASK_VERDICT_KEYS.map((key) => [key, sha256(canonicalJson(verification[key.split('.')[1]!] ?? null))]));
}

/** A criterion's description, whitespace-normalised: a doubled space is not a contract change that frees its steps. */
export function descriptionHash(description: string): string {
  return sha256(normaliseText(description.normalize('NFC')));
}

/** The print of the step titled `title` (a title the verifier qualifies, `describe › test`, matches its last part). */
function lockedStep(title: string, prints: readonly StepPrint[]): LockedStep {
  const last = title.split(' › ').at(-1) ?? title;
  const print = prints.find((p) => p.title === title) ?? prints.find((p) => p.title === last);
  return print
    ? { ...print, title }
    : { title, fingerprint: sha256(title), assertions: [], weakened: null, reads: [], bypass: [], navigation: [] };
}

/** Reads the committed lock of a task, or null when it has none; a lock of another format version is refused by name. */
export async function readTestLock(root: string, taskLabel: string): Promise<{ file: string; lock: TestLock } | null> {
  const file = lockPathFor(taskLabel);
  const absolute = path.join(root, file);
  // Only whether a name is there: what it is (a FIFO, a link to /dev/zero) is for readJsonFile to refuse, unread.
  const exists = await lstat(absolute).then(
    () => true,
    () => false,
  );
  if (!exists) return null;
  const { value } = await readJsonFile(absolute, file);
  const version = (value as { lockVersion?: unknown } | null)?.lockVersion;
  if (typeof version === 'number' && version !== TEST_LOCK_VERSION) throw new OutdatedLockError(file, taskLabel, version);
  const parsed = TestLockSchema.safeParse(value);
  if (!parsed.success) {
    const details = formatZodIssues(file, parsed.error.issues);
    throw new ValidationError(`${file}: not a valid Elenchos lock; regenerate it with elenchos lock --update ${taskLabel}`, { details });
  }
  return { file, lock: parsed.data };
}

/** A lock's text (as a base commit has it), or null when it is not a lock of this format: nothing to compare with. */
export function parseTestLock(text: string): TestLock | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = TestLockSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** Writes the lock as JSON with a trailing newline (stable key order: the diff is for a reviewer). */
export async function writeTestLock(root: string, file: string, lock: TestLock): Promise<void> {
  await writeFile(path.join(root, file), `${JSON.stringify(lock, null, 2)}\n`);
}

/** A lock written in another format version: it cannot be compared, and saying so beats a schema dump. */
export class OutdatedLockError extends ValidationError {
  constructor(
    readonly file: string,
    readonly task: string,
    readonly version: number,
  ) {
    super(
      version < TEST_LOCK_VERSION
        ? `${file}: written by an older Elenchos (lock version ${version}; this one reads version ${TEST_LOCK_VERSION}, which also locks what assertions read, the path to them, where a test navigates, the verifier's inputs and own modules, the config's and the task's keys that decide a verdict and every word of a Kane test); rewrite it with elenchos lock --update ${task}, check its diff and commit it`
        : `${file}: written by a newer Elenchos (lock version ${version}; this one reads version ${TEST_LOCK_VERSION}); upgrade Elenchos`,
    );
  }
}
