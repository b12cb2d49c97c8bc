// Where every piece of evidence lives: the one place that knows the `.elenchos/` layout.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';

export const ELENCHOS_DIR_NAME = '.elenchos';

/** `<root>/.elenchos`: runs, worktrees, anything Elenchos owns in a repository. */
export function elenchosDir(root: string): string {
  return path.join(root, ELENCHOS_DIR_NAME);
}

/** `<root>/.elenchos/runs`: one folder per run. */
export function runsDir(root: string): string {
  return path.join(elenchosDir(root), 'runs');
}

/** `<root>/.elenchos/runs/<runId>`. */
export function runDir(root: string, runId: string): string {
  return path.join(runsDir(root), runId);
}

/** `<root>/.elenchos/workspaces`: the detached worktrees agents work in. */
export function workspacesDir(root: string): string {
  return path.join(elenchosDir(root), 'workspaces');
}

/** `<root>/.elenchos/cache`: setup cache entries, one folder per key (core/setup-cache.ts). */
export function setupCacheDir(root: string): string {
  return path.join(elenchosDir(root), 'cache');
}

/** `<root>/.elenchos/workspaces/<runId>`. */
export function workspaceDir(root: string, runId: string): string {
  return path.join(workspacesDir(root), runId);
}

/** `<root>/.elenchos/pool`: idle warm worktrees (`<n>/`), their trusted index (`<n>.index`) and claim (`<n>.lock`). */
export function poolDir(root: string): string {
  return path.join(elenchosDir(root), 'pool');
}

/** `<runDir>/run.json`: the run record and machine-readable result. */
export function runJsonPath(dir: string): string {
  return path.join(dir, 'run.json');
}

/** `<runDir>/manifest.json`: hashes of everything else, written just before the final run.json. */
export function manifestPath(dir: string): string {
  return path.join(dir, 'manifest.json');
}

/** `<runDir>/processes.ndjson`: every process group the run started (pid, pgid, start time), for `gc`. */
export function childLogPath(dir: string): string {
  return path.join(dir, 'processes.ndjson');
}

/** `<runDir>/attempts`. */
export function attemptsDir(dir: string): string {
  return path.join(dir, 'attempts');
}

/** Folder name of attempt `n`: `01`, `02`, … (zero-padded so names sort like numbers up to 99). */
export function attemptName(n: number): string {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`attempt number must be a positive integer, got ${n}`);
  return String(n).padStart(2, '0');
}

/** `<runDir>/attempts/NN`. */
export function attemptDir(dir: string, n: number): string {
  return path.join(attemptsDir(dir), attemptName(n));
}

export interface AttemptPaths {
  dir: string;
  attemptJson: string;
  agentLog: string;
  appLog: string;
  setupLog: string;
  verifierDir: string;
  verifierEvents: string;
  verifierStderr: string;
  /** Kane's own output (Result.md, evidence pack) copied in. */
  kaneDir: string;
  workspaceDir: string;
  diffPatch: string;
  untrackedTar: string;
  baseTxt: string;
}

/** Every file path inside one attempt folder. */
export function attemptPaths(dir: string): AttemptPaths {
  const verifierDir = path.join(dir, 'verifier');
  const workspace = path.join(dir, 'workspace');
  return {
    dir,
    attemptJson: path.join(dir, 'attempt.json'),
    agentLog: path.join(dir, 'agent.log'),
    appLog: path.join(dir, 'app.log'),
    setupLog: path.join(dir, 'setup.log'),
    verifierDir,
    verifierEvents: path.join(verifierDir, 'events.ndjson'),
    verifierStderr: path.join(verifierDir, 'stderr.log'),
    kaneDir: path.join(verifierDir, 'kane'),
    workspaceDir: workspace,
    diffPatch: path.join(workspace, 'diff.patch'),
    untrackedTar: path.join(workspace, 'untracked.tar.gz'),
    baseTxt: path.join(workspace, 'base.txt'),
  };
}

/** Creates attempt `n`'s folders (verifier/kane, workspace) and returns its paths. */
export async function createAttemptDirs(dir: string, n: number): Promise<AttemptPaths> {
  const paths = attemptPaths(attemptDir(dir, n));
  await mkdir(paths.kaneDir, { recursive: true });
  await mkdir(paths.workspaceDir, { recursive: true });
  return paths;
}

/**
 * `<root>/.elenchos/listings/<verifier>`: test listings kept for later processes (the Playwright
 * verifier's); recomputed whenever missing, so deleting them is always safe. Apart from `cache/`, whose
 * every folder is a setup cache entry.
 */
export function listingsDir(root: string, verifier: string): string {
  return path.join(elenchosDir(root), 'listings', verifier);
}
