// `elenchos lock [tasks...] [--update]`: writes each task's test-weakening lock beside it.
import { isDeepStrictEqual } from 'node:util';
import path from 'node:path';
import { loadConfig } from '../../config/load-config.js';
import { InputError } from '../../errors.js';
import { repoRootOrCwd } from '../../git/git.js';
import { resolveTask } from '../resolve-task.js';
import { selectTasks } from '../select-tasks.js';
import { buildTestLock, compareTestLock, OutdatedLockError, readTestLock, writeTestLock } from './test-lock.js';
import { lockPathFor, TEST_LOCK_VERSION } from '../../contract/test-lock-schema.js';

export interface LockTasksOptions {
  cwd: string;
  /** Task files or globs; empty means the config's `tasks`. */
  files: string[];
  configFile?: string;
  env: NodeJS.ProcessEnv;
  /** Rewrite a lock that differs (the explicit, reviewed way to accept a changed test). */
  update: boolean;
}

export interface LockedTask {
  task: string;
  file: string;
  status: 'created' | 'unchanged' | 'updated' | 'refused';
  /** What the new lock gives up against the old one (weakenings being accepted, or refused). */
  weakenings: string[];
  notes: string[];
}

export interface LockTasksResult {
  ok: boolean;
  tasks: LockedTask[];
}

/** Creates missing locks, leaves equal ones, and rewrites differing ones only with `update`. */
export async function lockTasks(options: LockTasksOptions): Promise<LockTasksResult> {
  const root = await repoRootOrCwd(options.cwd);
  const { config } = await loadConfig({ root, file: options.configFile, env: options.env });
  const patterns = options.files.length > 0 ? options.files : config.tasks;
  const files = await selectTasks(patterns, options.files.length > 0 ? options.cwd : root);
  if (files.length === 0)
    throw new InputError(`no task contract matched ${patterns.join(', ')}; pass task files or set "tasks" in elenchos.config.json`);
  const tasks: LockedTask[] = [];
  for (const file of files) {
    const resolved = await resolveTask(path.resolve(options.cwd, file), root, config, options.env);
    const lock = await buildTestLock(resolved, { root, configFile: options.configFile });
    const stored = await readTestLock(root, resolved.label).catch((error: unknown) => {
      // An older format cannot be compared: --update rewrites it, anything else refuses and says why.
      if (error instanceof OutdatedLockError && error.version < TEST_LOCK_VERSION) return { file: error.file, lock: null };
      throw error;
    });
    const lockFile = lockPathFor(resolved.label);
    if (!stored) {
      await writeTestLock(root, lockFile, lock);
      tasks.push({ task: resolved.label, file: lockFile, status: 'created', weakenings: [], notes: [] });
      continue;
    }
    if (!stored.lock) {
      if (options.update) await writeTestLock(root, lockFile, lock);
      const note = `${lockFile} was written by an older Elenchos; its format cannot be compared with this one`;
      tasks.push({ task: resolved.label, file: lockFile, status: options.update ? 'updated' : 'refused', weakenings: [], notes: [note] });
      continue;
    }
    if (isDeepStrictEqual(stored.lock, lock)) {
      tasks.push({ task: resolved.label, file: lockFile, status: 'unchanged', weakenings: [], notes: [] });
      continue;
    }
    const { problems, notes } = compareTestLock(stored.lock, lock);
    const weakenings = problems.map((p) => `${p.criterion}: ${p.message}`);
    if (options.update) await writeTestLock(root, lockFile, lock);
    tasks.push({ task: resolved.label, file: lockFile, status: options.update ? 'updated' : 'refused', weakenings, notes });
  }
  return { ok: tasks.every((t) => t.status !== 'refused'), tasks };
}
