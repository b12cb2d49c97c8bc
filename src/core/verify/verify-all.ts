// `elenchos verify`: every task contract against the committed code, no agent, in parallel (docs/ci.md).
import { loadConfig } from '../../config/load-config.js';
import { PORT_PLACEHOLDER } from '../../config/port-placeholder.js';
import { DiskFullError, ElenchosError, InputError, describeError } from '../../errors.js';
import { attemptDir, attemptPaths } from '../../evidence/layout.js';
import { findRepoRoot } from '../../git/git.js';
import { hiddenFromStatus } from '../../git/status-trust.js';
import type { RunReporter } from '../events.js';
import type { RunRecordDraft } from '../run/run-record-writer.js';
import { needsHumanIn } from '../stored-runs/needs-human.js';
import { criteriaWithEvidence } from '../run/attempt-criteria.js';
import { dirtyPaths, readCheckoutState, type CheckoutState } from '../../git/status.js';
import { runTask } from '../run/run-task.js';
import { lockedTasksLeftOut } from '../lock/locked-task-set.js';
import { selectTasks, shardOf, type Shard } from '../select-tasks.js';
import { buildShardMetadata, labelOf } from './shard-metadata.js';
import type { ShardMetadata } from './shard-metadata-schema.js';
import { overallExit, summarizedCriteria, type VerifiedTask } from './verify-summary.js';
import { readAttemptFile } from '../../evidence/attempt-record.js';
import type { GuardName } from '../../states.js';

export interface VerifyAllOptions {
  cwd: string;
  /** Task files or globs; empty means the config's `tasks`. */
  tasks: string[];
  configFile?: string;
  env: NodeJS.ProcessEnv;
  overrides?: Record<string, unknown>;
  workers: number;
  shard?: Shard;
  inPlace?: boolean;
  /** `--lock-base <ref>`, passed to each task's preflight. */
  lockBase?: string;
  /** `--require`: guards each task's verdict must stand on besides the config's. */
  requireGuards?: readonly GuardName[];
  signal: AbortSignal;
  /** A reporter for each task's run (prefixed when tasks run in parallel). */
  reporterFor: (taskFile: string) => RunReporter;
}

export interface VerifyAllResult {
  root: string;
  tasks: VerifiedTask[];
  exitCode: number;
  /** Which shard of which commit and inputs this was, for `--json` (an unsharded verify is shard 1/1). */
  metadata: ShardMetadata;
}

/** Verifies each selected task in its own worktree with `workers` at a time; exit 0 only if every one is VERIFIED. */
export async function verifyAll(options: VerifyAllOptions): Promise<VerifyAllResult> {
  const repoRoot = await findRepoRoot(options.cwd);
  const root = repoRoot ?? options.cwd;
  if (options.inPlace && options.workers > 1)
    throw new InputError('--in-place verifies in the checkout itself, one task at a time; drop --workers or --in-place');
  const {
    config,
    path: configPath,
    label: configLabel,
  } = await loadConfig({ root, file: options.configFile, env: options.env, overrides: options.overrides });
  if (options.workers > 1 && (config.app.port !== 0 || !config.app.url.includes(PORT_PLACEHOLDER))) {
    throw new InputError(
      '--workers needs a free port per task: set app.port to 0 and use {port} in app.url (and in app.command, or read PORT)',
    );
  }
  if (options.inPlace) {
    // Checked once: the verifier's own output (Kane's output-<stem>/) may dirty the checkout between tasks.
    const dirty = await dirtyPaths(root);
    if (dirty.length > 0)
      throw new InputError(
        `the working tree is not clean (${dirty.slice(0, 10).join(', ')}); commit or stash these changes first: verify --in-place checks the committed code`,
      );
    // "Clean" is git status's word: refused when the checkout tells git not to look (git/status-trust.ts).
    const hidden = await hiddenFromStatus(root);
    if (hidden.length > 0) throw new InputError(`verify --in-place: ${hidden[0]}`, { details: hidden.slice(1) });
  }
  const patterns = options.tasks.length > 0 ? options.tasks : config.tasks;
  const base = options.tasks.length > 0 ? options.cwd : root;
  const all = await selectTasks(patterns, base);
  const files = options.shard ? shardOf(all, options.shard) : all;
  // A shard may have nothing to run, but a verification of no task at all is no verdict (a glob that missed).
  if (all.length === 0) {
    throw new InputError(`no task contract matched ${patterns.join(', ')}; pass task files or set "tasks" in elenchos.config.json`);
  }
  // Read once, not per task: every task verifies the same commit, and a big checkout's status is costly.
  const checkout = repoRoot ? readCheckoutState(repoRoot) : undefined;
  const head = await checkout?.head;
  // The config's own selection may not drop a task whose lock is in the commit (or in --lock-base).
  if (options.tasks.length === 0 && head) {
    const selected = all.map((file) => labelOf(root, file));
    const left = await lockedTasksLeftOut(root, head, selected, { configLabel, base: options.lockBase });
    if (left.length > 0) throw new InputError(left[0]!, { details: left.slice(1) });
  }
  // Hashed before any task runs, from the commit every task verifies: `merge` joins shards on these.
  const metadata = await buildShardMetadata({
    root,
    commit: head ?? null,
    configPath,
    files: all,
    shard: options.shard ?? { index: 1, count: 1 },
  });
  const results: VerifiedTask[] = new Array(files.length);
  let next = 0;
  const worker = async () => {
    while (next < files.length && !options.signal.aborted) {
      const i = next++;
      results[i] = await verifyOne(files[i]!, root, options, { repoRoot: repoRoot ?? undefined, checkout });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.workers, files.length)) }, worker));
  const tasks = results.filter(Boolean);
  const flags = await needsHumanIn(root, options.env);
  for (const task of tasks) task.needsHuman = task.record ? (flags.get(task.record.task.id) ?? null) : null;
  return { root, tasks, exitCode: overallExit(tasks, options.signal.aborted), metadata };
}

async function verifyOne(
  file: string,
  root: string,
  options: VerifyAllOptions,
  shared: { repoRoot?: string; checkout?: CheckoutState },
): Promise<VerifiedTask> {
  // Named as the run record and the shard's plan name it, so that merge can match the three.
  const shown = labelOf(root, file);
  try {
    const result = await runTask({
      cwd: options.cwd,
      taskFile: file,
      configFile: options.configFile,
      env: options.env,
      overrides: options.overrides,
      signal: options.signal,
      reporter: options.reporterFor(shown),
      mode: 'verify',
      inPlace: options.inPlace,
      cleanChecked: options.inPlace,
      lockBase: options.lockBase,
      requireGuards: options.requireGuards,
      ...shared,
    });
    return {
      file: shown,
      record: result.record,
      runDir: result.runDir,
      refused: null,
      criteria: await lastCriteria(result.runDir, result.record),
    };
  } catch (error) {
    // A full disk is no refusal of this task (exit 3): it ends the whole command with its own line, exit 2.
    if (!(error instanceof ElenchosError) || error instanceof DiskFullError) throw error;
    const message = [error.message, ...error.details].join('\n');
    return { file: shown, record: null, runDir: null, refused: message || describeError(error), criteria: [] };
  }
}

async function lastCriteria(runDir: string, record: RunRecordDraft): Promise<VerifiedTask['criteria']> {
  const last = record.attempts.at(-1);
  if (!last) return [];
  const detail = await readAttemptFile(attemptPaths(attemptDir(runDir, last.number)).attemptJson).catch(() => null);
  return detail ? criteriaWithEvidence(detail) : summarizedCriteria(record);
}
