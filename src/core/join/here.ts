// What the joining machine knows for itself, read once: its HEAD and tree, its config, its signing key, and
// for each task its own preflight and contract lock. Shares are checked against this, never the other way.
import path from 'node:path';
import type { Config } from '../../config/config-schema.js';
import { loadConfig } from '../../config/load-config.js';
import { checkRepoRelative } from '../../contract/repo-path.js';
import { describeError, PreflightError } from '../../errors.js';
import { findRepoRoot, git } from '../../git/git.js';
import { headCommit } from '../../git/status.js';
import { lockContract, type LockedFile } from '../lock/contract-lock.js';
import { preflight, type Preflight } from '../run/preflight.js';
import { buildShardMetadata } from '../verify/shard-metadata.js';
import type { ShardInput } from '../verify/shard-metadata-schema.js';

export interface TaskHere {
  label: string;
  /** Absolute path of the task file here. */
  file: string;
  pre: Preflight;
  locked: LockedFile[];
}

export interface Here {
  root: string;
  head: string;
  tree: string;
  configPath: string | null;
  configLabel: string;
  config: Config;
  signingKey?: string;
  /** The inputs (config, tasks, tests, locks) of `tasks` as they are here, hashed like shard metadata. */
  inputsOf: (tasks: readonly string[]) => Promise<ShardInput[]>;
  /** A task's preflight (no agent: none runs here) and contract lock; a string when it cannot run here. */
  taskContext: (label: string) => Promise<TaskHere | string>;
}

export interface HereOptions {
  cwd: string;
  configFile?: string;
  env: NodeJS.ProcessEnv;
  overrides?: Record<string, unknown>;
  signingKey?: string;
}

export async function readHere(options: HereOptions): Promise<Here> {
  const root = await findRepoRoot(options.cwd);
  if (root === null)
    throw new PreflightError(
      'NOT_A_REPOSITORY',
      `${options.cwd} is not inside a git repository; join in a checkout of the repository the shares ran on`,
    );
  const head = await headCommit(root).catch(() => null);
  if (head === null) throw new PreflightError('NO_COMMIT', `${root} has no commit yet; join in a checkout of the commit the shares ran on`);
  const tree = (await git(['rev-parse', `${head}^{tree}`], { cwd: root })).trim();
  const loaded = await loadConfig({ root, file: options.configFile, env: options.env, overrides: options.overrides });
  const inputs = new Map<string, Promise<ShardInput[]>>();
  const tasks = new Map<string, Promise<TaskHere | string>>();
  const inputsOf = (labels: readonly string[]) => {
    const key = JSON.stringify(labels);
    if (!inputs.has(key)) {
      // Only the inputs are used (HEAD's tree is read once above): no commit, no second git call.
      const files = labels.map((l) => path.join(root, checkRepoRelative(l, 'elenchos-share.json: tasks')));
      inputs.set(
        key,
        buildShardMetadata({ root, commit: null, configPath: loaded.path, files, shard: { index: 1, count: 1 } }).then((m) => m.inputs),
      );
    }
    return inputs.get(key)!;
  };
  const taskContext = (label: string) => {
    if (!tasks.has(label))
      tasks.set(
        label,
        contextOf(root, label, options).catch((error: unknown) => describeError(error)),
      );
    return tasks.get(label)!;
  };
  return {
    root,
    head,
    tree,
    configPath: loaded.path,
    configLabel: loaded.label,
    config: loaded.config,
    signingKey: options.signingKey,
    inputsOf,
    taskContext,
  };
}

async function contextOf(root: string, label: string, options: HereOptions): Promise<TaskHere> {
  const file = path.join(root, checkRepoRelative(label, 'elenchos-share.json: tasks'));
  // No agent runs here (the join replays stored changes), so none need be installed; the checkout must be clean.
  const pre = await preflight({
    cwd: options.cwd,
    taskFile: file,
    configFile: options.configFile,
    env: options.env,
    overrides: options.overrides,
    needsAgent: false,
    requireClean: true,
    repoRoot: root,
  });
  const locked = await lockContract({ root, taskLabel: pre.resolved.label, testLabel: pre.resolved.testFileLabel, extra: pre.extraInputs });
  return { label, file, pre, locked };
}
