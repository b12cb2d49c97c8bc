// `elenchos gc`: finish what a killed run left behind, without ever deleting evidence.
import { readdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { workspacesDir } from '../evidence/layout.js';
import { loadConfig } from '../config/load-config.js';
import { writeManifest } from '../evidence/manifest.js';
import { Redactor } from '../evidence/redact.js';
import { collectSecretValues } from '../evidence/secret-values.js';
import { listRuns, type RunRecord } from '../evidence/run-record.js';
import { writeJsonAtomic } from '../evidence/write-json.js';
import { runDir } from '../evidence/layout.js';
import { listWorktrees, removeWorktree } from '../git/worktree.js';
import { git, repoRootOrCwd } from '../git/git.js';

export interface GcResult {
  /** Runs found RUNNING whose process is gone, now ERROR ABANDONED. */
  abandoned: string[];
  /** Worktrees removed (no live run owns them, and retainWorkspace did not keep them). */
  removedWorktrees: string[];
  /** Runs still running (left alone). */
  running: string[];
  /** Runs RUNNING on another host: cannot tell, left alone. */
  foreign: string[];
}

/** Marks abandoned runs, removes orphaned worktrees and prunes git's worktree list; `dryRun` only reports. */
export async function collectGarbage(options: { cwd: string; env: NodeJS.ProcessEnv; dryRun?: boolean }): Promise<GcResult> {
  const root = await repoRootOrCwd(options.cwd);
  const result: GcResult = { abandoned: [], removedWorktrees: [], running: [], foreign: [] };
  // Folders first, then records: a run that starts in between has a record by then, so it counts as live.
  const dir = workspacesDir(root);
  const names = await readdir(dir).catch(() => [] as string[]);
  const { runs } = await listRuns(root);
  const live = new Set<string>();
  for (const run of runs.filter((r) => r.state === 'RUNNING')) {
    if (run.host !== hostname()) {
      result.foreign.push(run.runId);
      live.add(run.runId);
    } else if (typeof run.pid === 'number' && processAlive(run.pid)) {
      result.running.push(run.runId);
      live.add(run.runId);
    } else {
      result.abandoned.push(run.runId);
      if (!options.dryRun) await markAbandoned(root, run, options.env);
    }
  }
  const kept = new Set(runs.filter((r) => r.workspace.kept).map((r) => r.runId));
  for (const name of names) {
    // `<run-id>-base` is the base-commit probe of a run (core/app-blame.ts): its run owns it.
    const owner = name.replace(/-base$/, '');
    if (live.has(owner) || kept.has(name)) continue;
    result.removedWorktrees.push(path.join(dir, name));
    if (!options.dryRun) await removeWorktree(root, path.join(dir, name));
  }
  if (!options.dryRun) {
    // Registered worktrees whose folder is gone (deleted by hand) are forgotten too.
    const registered = await listWorktrees(root);
    if (registered.some((w) => w.path.startsWith(dir))) await git(['worktree', 'prune'], { cwd: root });
  }
  return result;
}

async function markAbandoned(root: string, run: RunRecord, env: NodeJS.ProcessEnv): Promise<void> {
  const dir = runDir(root, run.runId);
  const finishedAt = new Date().toISOString();
  await writeJsonAtomic(path.join(dir, 'run.json'), {
    ...run,
    state: 'ERROR',
    reason: 'ABANDONED',
    message: `the run's process (pid ${run.pid}) ended without finishing it (killed outright?); marked by elenchos gc`,
    finishedAt,
    durationMs: Date.parse(finishedAt) - Date.parse(run.startedAt),
  });
  // The killed run never reached its own redaction: do it now, with what this environment knows.
  const redact = await loadConfig({ root, env }).then((c) => c.config.redact, () => [] as string[]);
  await new Redactor({ values: collectSecretValues({ env, redactEnv: redact }) }).redactTree(dir);
  await writeManifest(dir, { signingKey: env.ELENCHOS_SIGNING_KEY || undefined });
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
