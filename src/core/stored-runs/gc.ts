// `elenchos gc`: finish what a killed run left behind (processes, worktrees, unsealed records), never deleting evidence.
import { access, readdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { setupCacheDir, workspaceOwner, workspacesDir } from '../../evidence/layout.js';
import { loadConfig } from '../../config/load-config.js';
import { collectSecretValues } from '../../evidence/secret-values.js';
import { listRuns, type RunRecord } from '../../evidence/run-record.js';
import { manifestPath, runDir } from '../../evidence/layout.js';
import { sealRun } from '../../evidence/seal.js';
import { Redactor } from '../../evidence/redact.js';
import { listWorktrees, removeWorktree } from '../../git/worktree.js';
import { PRIVATE_OBJECTS, releaseHeldObjects } from '../../git/object-quarantine.js';
import { commonGitDir, git, repoRootOrCwd } from '../../git/git.js';
import { killEscapedProcesses, scanEscapedProcesses, type FindEscapedOptions } from '../../process/escaped-processes.js';
import { parseOwnerTag } from '../../process/owner-tag.js';
import type { ProcStat } from '../../process/proc-stat.js';
import { processAliveSince, readProcessTable, tableFacts, type TableFacts } from '../../process/process-table.js';
import { findRunProcesses, stopProcesses } from './run-processes.js';
import { trimSetupCache, type TrimmedEntry } from '../workspace/setup-cache-gc.js';
import { trimPool } from '../workspace/worktree-pool.js';
import { signingKeyFor } from '../../util/signing-key.js';

export interface GcResult {
  /** Runs left unsealed (RUNNING, or killed while sealing) whose process is gone, now ERROR ABANDONED. */
  abandoned: string[];
  /** Processes of dead runs that were still alive, now stopped. */
  stopped: { runId: string; pid: number }[];
  /** Any other process an Elenchos process now gone started (its `ELENCHOS_OWNER`), inside this repository: a listing of `check`… */
  orphans: Orphan[];
  /** Worktrees removed (no live run owns them, and retainWorkspace did not keep them). */
  removedWorktrees: string[];
  /** Runs still running (left alone). */
  running: string[];
  /** Runs RUNNING on another host: cannot tell, left alone. */
  foreign: string[];
  /** Idle warm worktrees removed: beyond worktreePool.size, or all of them with `pool`. */
  trimmedPool: string[];
  /** Setup cache entries removed: old or over setupCache.maxBytes (never the current key), or every idle one with `cache`. */
  trimmedCache: TrimmedEntry[];
  /**
   * The process table gc looked in (its weakest look): where it is unavailable, no process of a dead run or
   * orphan could be found, and gc says so rather than "nothing to stop" (docs/security.md#the-process-table).
   */
  processTable: TableFacts;
}

export interface Orphan {
  pid: number;
  command: string;
  /** The pid of the Elenchos process that started it (gone, or now another process). */
  ownerPid: number;
}

/** Stops dead runs' processes, seals them ABANDONED, removes orphaned worktrees and prunes git's list; `dryRun` only reports. */
export async function collectGarbage(options: {
  cwd: string;
  env: NodeJS.ProcessEnv;
  dryRun?: boolean;
  pool?: boolean;
  cache?: boolean;
}): Promise<GcResult> {
  const root = await repoRootOrCwd(options.cwd);
  const result: GcResult = {
    abandoned: [],
    stopped: [],
    orphans: [],
    removedWorktrees: [],
    running: [],
    foreign: [],
    trimmedPool: [],
    trimmedCache: [],
    processTable: { source: 'proc', why: '', blind: [] },
  };
  const looks: TableFacts[] = [];
  // Folders first, then records: a run that starts in between has a record by then, so it counts as live.
  const dir = workspacesDir(root);
  const names = await readdir(dir).catch(() => [] as string[]);
  const held = await heldRuns(root);
  const { runs } = await listRuns(root);
  const live = new Set<string>();
  // The table is read once, and only if some dead run recorded a child.
  let table: ProcStat[] | null = null;
  const procTable = () => {
    if (table === null) {
      const read = readProcessTable();
      looks.push(tableFacts(read));
      table = [...read.processes];
    }
    return table;
  };
  // Processes found by what they carry (a tag, an owner), killed unless this is a dry run.
  const sweep = async (which: FindEscapedOptions) => {
    const found = options.dryRun ? scanEscapedProcesses(which) : await killEscapedProcesses(which);
    looks.push(found.table);
    return 'found' in found ? found.found : found.killed;
  };
  for (const run of runs) {
    const folder = runDir(root, run.runId);
    const sealed = run.state !== 'RUNNING' && (await exists(manifestPath(folder)));
    // A best-of run's candidates (docs/best-of.md) each have a worktree and a process log of their own.
    const candidates = run.candidates ?? [];
    if (run.host !== hostname()) {
      if (!sealed) {
        result.foreign.push(run.runId);
        live.add(run.runId);
        for (const c of candidates) live.add(c.runId);
      }
      continue;
    }
    if (processAliveSince(run.pid, run.pidStartTime)) {
      if (!sealed) {
        result.running.push(run.runId);
        live.add(run.runId);
        for (const c of candidates) live.add(c.runId);
      }
      continue;
    }
    // Its owner is dead (or a zombie, or the pid now names another process): nothing of it may keep running.
    const leftovers = [];
    for (const from of [folder, ...candidates.map((c) => path.join(folder, c.dir))])
      leftovers.push(...(await findRunProcesses(from, run.pidStartTime ?? null, procTable)));
    for (const p of leftovers) result.stopped.push({ runId: run.runId, pid: p.pid });
    if (!options.dryRun) await stopProcesses(leftovers);
    // Those that left their group (setsid) but carry the run's inherited tag go too. By tag only:
    // an in-place run's workspace is the checkout, where the user's own shell and editor live.
    const tagged = { tagPrefixes: [`${run.runId}/`, ...candidates.map((c) => `${c.runId}/`)] };
    const escaped = await sweep(tagged);
    for (const p of escaped) if (!leftovers.some((l) => l.pid === p.pid)) result.stopped.push({ runId: run.runId, pid: p.pid });
    if (sealed) continue;
    result.abandoned.push(run.runId);
    if (!options.dryRun) await markAbandoned(root, run, options.env);
  }
  // Children whose Elenchos died outside any run record (a listing for `check`, `verify`, `doctor`), or
  // that the watchdog could not stop (it was killed with its Elenchos): found by the owner tag they inherit.
  // Only processes started with that tag carry it, only a tag naming a gone process counts, and only in
  // this repository, like everything else gc does (an orphan elsewhere is its repository's gc's to stop).
  const orphaned = { deadOwnersIn: [root] };
  const orphans = await sweep(orphaned);
  result.processTable = weakestLook(looks);
  const stoppedPids = new Set(result.stopped.map((p) => p.pid));
  for (const p of orphans)
    if (!stoppedPids.has(p.pid)) result.orphans.push({ pid: p.pid, command: p.command, ownerPid: parseOwnerTag(p.owner ?? '')?.pid ?? 0 });
  const kept = new Set(runs.filter((r) => r.workspace.kept).map((r) => r.runId));
  for (const name of names) {
    // `<run-id>-base` is the base-commit probe of a run (core/app/app-blame.ts): its run owns it.
    const owner = workspaceOwner(name);
    if (live.has(owner) || kept.has(name)) continue;
    result.removedWorktrees.push(path.join(dir, name));
    if (!options.dryRun) await removeWorktree(root, path.join(dir, name));
  }
  // A dead run's agent objects, held out of the store while it ran (git/object-quarantine.ts), join it now:
  // a kept worktree of that run reads them, and nobody else's sandbox is left to hide them from.
  for (const runId of held) if (!live.has(runId) && !options.dryRun) await releaseHeldObjects(root, runId);
  const config = await loadConfig({ root, env: options.env }).then(
    (loaded) => loaded.config,
    () => null, // an unreadable config still lets gc clean; the defaults apply
  );
  const poolSize = config ? (config.worktreePool.enabled ? config.worktreePool.size : 0) : 4;
  result.trimmedPool = await trimPool(root, options.pool ? 0 : poolSize, options.dryRun);
  result.trimmedCache = await trimSetupCache({ root, cacheDir: setupCacheDir(root), config, all: options.cache, dryRun: options.dryRun });
  if (!options.dryRun) {
    // Registered worktrees whose folder is gone (deleted by hand) are forgotten too.
    const registered = await listWorktrees(root);
    if (registered.some((w) => w.path.startsWith(dir))) await git(['worktree', 'prune'], { cwd: root });
  }
  return result;
}

/** The look that saw least: an unavailable table first, then the one blind to most. */
function weakestLook(looks: readonly TableFacts[]): TableFacts {
  return [...looks].sort(
    (a, b) => Number(b.source === 'unavailable') - Number(a.source === 'unavailable') || b.blind.length - a.blind.length,
  )[0]!;
}

/** The runs with a private object folder (`objects/elenchos-private/<run>`), listed before the run records are read. */
async function heldRuns(root: string): Promise<string[]> {
  const objects = path.join(await commonGitDir(root).catch(() => path.join(root, '.git')), 'objects');
  return readdir(path.join(objects, PRIVATE_OBJECTS)).catch(() => [] as string[]);
}

/** Seals a dead run as ERROR ABANDONED, saying how far it got. */
async function markAbandoned(root: string, run: RunRecord, env: NodeJS.ProcessEnv): Promise<void> {
  const dir = runDir(root, run.runId);
  const reached = run.sealing ?? (run.state === 'RUNNING' ? null : run);
  const how = reached
    ? `was killed while sealing its evidence (it had ended ${reached.state}${reached.reason ? ` ${reached.reason}` : ''}, which was never confirmed)`
    : 'ended without finishing it (killed outright?)';
  const finishedAt = new Date().toISOString();
  const abandoned: RunRecord = {
    ...run,
    state: 'ERROR',
    reason: 'ABANDONED',
    message: `the run's process (pid ${run.pid}) ${how}; marked by elenchos gc`,
    finishedAt,
    durationMs: Math.max(0, Date.parse(finishedAt) - Date.parse(run.startedAt)),
  };
  delete abandoned.sealing;
  // The killed run never finished its own redaction: do it now, with what this environment knows.
  const redact = await loadConfig({ root, env }).then(
    (c) => c.config.redact,
    () => [] as string[],
  );
  await sealRun(dir, () => abandoned, {
    redactor: new Redactor({ values: collectSecretValues({ env, redactEnv: redact }) }),
    signingKey: signingKeyFor(env),
  });
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}
