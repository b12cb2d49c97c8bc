// Where every piece of evidence lives: the one place that knows the `.elenchos/` layout.
import path from 'node:path';
import { ELENCHOS_DIR_NAME, RUNS_DIR_NAME, WORKSPACE_DIR_NAME, WORKSPACE_FILES, WORKSPACES_DIR_NAME } from '../git/layout-names.js';

export { ELENCHOS_DIR_NAME };

/** The name of every file and folder of a run's evidence (paths come from the functions below). */
export const EVIDENCE_FILES = {
  runJson: 'run.json',
  manifest: 'manifest.json',
  processes: 'processes.ndjson',
  attempts: 'attempts',
  attemptJson: 'attempt.json',
  prompt: 'prompt.md',
  agentLog: 'agent.log',
  appLog: 'app.log',
  setupLog: 'setup.log',
  verifier: 'verifier',
  verifierEvents: 'events.ndjson',
  verifierStderr: 'stderr.log',
  kane: 'kane',
  playwrightReport: 'playwright-report',
  /** The app and setup tried on the base commit when the app did not start (core/app/app-blame.ts). */
  baseProbe: 'base-probe',
  /** Kane's exploratory sweep after a PASS, in the attempt's `verifier/` folder (core/run/sweep-step.ts). */
  sweep: 'sweep',
  /** What a command verifier keeps of its own, in `verifier/` (its ELENCHOS_EVIDENCE_DIR). */
  commandFiles: 'files',
  /** A best-of run's candidates, one folder each (`candidates/<name>/`, a run folder of its own). */
  candidates: 'candidates',
  workspace: WORKSPACE_DIR_NAME,
  ...WORKSPACE_FILES,
} as const;

/** `<root>/.elenchos`: runs, worktrees, anything Elenchos owns in a repository. */
export function elenchosDir(root: string): string {
  return path.join(root, ELENCHOS_DIR_NAME);
}

/** `<root>/.elenchos/runs`: one folder per run. */
export function runsDir(root: string): string {
  return path.join(elenchosDir(root), RUNS_DIR_NAME);
}

/** `<root>/.elenchos/runs/<runId>`. */
export function runDir(root: string, runId: string): string {
  return path.join(runsDir(root), runId);
}

/** `<root>/.elenchos/workspaces`: the detached worktrees agents work in. */
export function workspacesDir(root: string): string {
  return path.join(elenchosDir(root), WORKSPACES_DIR_NAME);
}

/** `<root>/.elenchos/cache`: setup cache entries, one folder per key (core/workspace/setup-cache.ts). */
export function setupCacheDir(root: string): string {
  return path.join(elenchosDir(root), 'cache');
}

/** `<root>/.elenchos/workspaces/<runId>`. */
export function workspaceDir(root: string, runId: string): string {
  return path.join(workspacesDir(root), runId);
}

// A run's base-commit probe (core/app/app-blame.ts) works in `<runId>-base` beside the run's worktree.
const BASE_PROBE_SUFFIX = '-base';

/** `<root>/.elenchos/workspaces/<runId>-base`: the fresh worktree of the base commit the app is tried on. */
export function baseProbeWorkspaceDir(root: string, runId: string): string {
  return path.join(workspacesDir(root), `${runId}${BASE_PROBE_SUFFIX}`);
}

/** The run a folder of `workspaces/` belongs to: its own name, or a base probe's run. */
export function workspaceOwner(name: string): string {
  return name.endsWith(BASE_PROBE_SUFFIX) ? name.slice(0, -BASE_PROBE_SUFFIX.length) : name;
}

/** `<root>/.elenchos/pool`: idle warm worktrees (`<n>/`), their trusted index (`<n>.index`) and claim (`<n>.lock`). */
export function poolDir(root: string): string {
  return path.join(elenchosDir(root), 'pool');
}

/** `<runDir>/run.json`: the run record and machine-readable result. */
export function runJsonPath(dir: string): string {
  return path.join(dir, EVIDENCE_FILES.runJson);
}

/** `<runDir>/manifest.json`: hashes of everything else, written just before the final run.json. */
export function manifestPath(dir: string): string {
  return path.join(dir, EVIDENCE_FILES.manifest);
}

/** `<runDir>/processes.ndjson`: every process group the run started (pid, pgid, start time), for `gc`. */
export function childLogPath(dir: string): string {
  return path.join(dir, EVIDENCE_FILES.processes);
}

/** `<runDir>/attempts`. */
export function attemptsDir(dir: string): string {
  return path.join(dir, EVIDENCE_FILES.attempts);
}

/** `<runDir>/candidates`: a best-of run's candidates. */
export function candidatesDir(dir: string): string {
  return path.join(dir, EVIDENCE_FILES.candidates);
}

/** `<runDir>/candidates/<name>`: candidate `name` of a best-of run, laid out as a run folder. */
export function candidateDir(dir: string, name: string): string {
  return path.join(candidatesDir(dir), name);
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
  prompt: string;
  agentLog: string;
  appLog: string;
  setupLog: string;
  verifierDir: string;
  verifierEvents: string;
  verifierStderr: string;
  /** Kane's own output (Result.md, evidence pack) copied in. */
  kaneDir: string;
  /** Playwright's HTML report, when one was kept. */
  playwrightReport: string;
  /** The app and setup tried on the base commit (core/app/app-blame.ts). */
  baseProbeDir: string;
  workspaceDir: string;
  diffPatch: string;
  untrackedTar: string;
  baseTxt: string;
}

/** Every file path inside one attempt folder. */
export function attemptPaths(dir: string): AttemptPaths {
  const verifierDir = path.join(dir, EVIDENCE_FILES.verifier);
  const workspace = path.join(dir, EVIDENCE_FILES.workspace);
  return {
    dir,
    attemptJson: path.join(dir, EVIDENCE_FILES.attemptJson),
    prompt: path.join(dir, EVIDENCE_FILES.prompt),
    agentLog: path.join(dir, EVIDENCE_FILES.agentLog),
    appLog: path.join(dir, EVIDENCE_FILES.appLog),
    setupLog: path.join(dir, EVIDENCE_FILES.setupLog),
    verifierDir,
    ...verifierFiles(verifierDir),
    kaneDir: path.join(verifierDir, EVIDENCE_FILES.kane),
    playwrightReport: path.join(verifierDir, EVIDENCE_FILES.playwrightReport, 'index.html'),
    baseProbeDir: path.join(dir, EVIDENCE_FILES.baseProbe),
    workspaceDir: workspace,
    diffPatch: path.join(workspace, EVIDENCE_FILES.diff),
    untrackedTar: path.join(workspace, EVIDENCE_FILES.untracked),
    baseTxt: path.join(workspace, EVIDENCE_FILES.base),
  };
}

/**
 * `<root>/.elenchos/listings/<verifier>`: test listings kept for later processes (the Playwright
 * verifier's); recomputed whenever missing, so deleting them is always safe. Apart from `cache/`, whose
 * every folder is a setup cache entry.
 */
export function listingsDir(root: string, verifier: string): string {
  return path.join(elenchosDir(root), 'listings', verifier);
}

/** A verifier's byte-for-byte output in its evidence folder: stdout (the event stream) and stderr. */
export function verifierFiles(evidenceDir: string): { verifierEvents: string; verifierStderr: string } {
  return {
    verifierEvents: path.join(evidenceDir, EVIDENCE_FILES.verifierEvents),
    verifierStderr: path.join(evidenceDir, EVIDENCE_FILES.verifierStderr),
  };
}

/** What the Playwright verifier writes in an attempt's `verifier/` folder (verifiers/playwright/). */
export const PLAYWRIGHT_FILES = {
  /** The config Elenchos writes: standalone, or (`.ts`) importing the project's own config. */
  config: 'playwright.config.mjs',
  configOverUser: 'playwright.config.ts',
  report: 'report.json',
  configNotes: 'config-notes.json',
  progressReporter: 'progress-reporter.mjs',
  stdout: 'stdout.log',
  /** Playwright's output folder (traces, screenshots), and under it the attachments copied in from elsewhere. */
  outputDir: 'playwright',
  attachments: 'attachments',
  /** The last frame of a failing test's trace, written beside the trace. */
  traceLastFrame: 'trace-last-frame.jpeg',
} as const;

/** The Playwright verifier's files in its evidence folder (`<attempt>/verifier/`). */
export function playwrightPaths(evidenceDir: string) {
  const outputDir = path.join(evidenceDir, PLAYWRIGHT_FILES.outputDir);
  return {
    report: path.join(evidenceDir, PLAYWRIGHT_FILES.report),
    configNotes: path.join(evidenceDir, PLAYWRIGHT_FILES.configNotes),
    progressReporter: path.join(evidenceDir, PLAYWRIGHT_FILES.progressReporter),
    stdout: path.join(evidenceDir, PLAYWRIGHT_FILES.stdout),
    outputDir,
    attachmentsDir: path.join(outputDir, PLAYWRIGHT_FILES.attachments),
  };
}

/** `<verifier>/sweep`: the evidence of Kane's sweep after a PASS. */
export function sweepDir(verifierDir: string): string {
  return path.join(verifierDir, EVIDENCE_FILES.sweep);
}

/** `<verifier>/files`: the folder a command verifier is given for evidence of its own. */
export function commandFilesDir(verifierDir: string): string {
  return path.join(verifierDir, EVIDENCE_FILES.commandFiles);
}

/** `<root>/.elenchos/apply/<runId>`: where `apply --branch` rebuilds a run's verified tree (removed after). */
export function applyDir(root: string, runId: string): string {
  return path.join(elenchosDir(root), 'apply', runId);
}

/** `<root>/.elenchos/restored/<runId>-NN`: the default worktree `restore` puts attempt `n`'s tree in. */
export function restoredDir(root: string, runId: string, n: number): string {
  return path.join(elenchosDir(root), 'restored', `${runId}-${attemptName(n)}`);
}

/** `<root>/.elenchos/author/<name>`: `elenchos author`'s scratch folder for one draft. */
export function authorDir(root: string, name: string): string {
  return path.join(elenchosDir(root), 'author', name);
}

/** `<root>/.elenchos/acks`: `elenchos ack` records, one folder per task. */
export function acksDir(root: string): string {
  return path.join(elenchosDir(root), 'acks');
}

/** `<root>/.elenchos/reports`: HTML reports written by `elenchos report` (outside the sealed run folder). */
export function reportsDir(root: string): string {
  return path.join(elenchosDir(root), 'reports');
}

/** `.elenchos/runs/<runId>` relative to the repository root (as JUnit and messages name it). */
export function relativeRunDir(runId: string): string {
  return path.join(ELENCHOS_DIR_NAME, RUNS_DIR_NAME, runId);
}

/** `.elenchos/verifier-only/<stamp>`, relative: where `elenchos verify --verifier-only` keeps its evidence by default. */
export function verifierOnlyDir(stamp: string): string {
  return path.join(ELENCHOS_DIR_NAME, 'verifier-only', stamp);
}

/** `.elenchos/doctor`, relative: the logs of `elenchos doctor`'s app probe. */
export const DOCTOR_DIR = path.join(ELENCHOS_DIR_NAME, 'doctor');

/** The files of one setup cache entry (`.elenchos/cache/<key>/`): its manifest, when it was last used, and the saved files. */
export function setupCacheEntryFiles(entryDir: string): { manifest: string; lastUsed: string; files: string } {
  return {
    manifest: path.join(entryDir, 'manifest.json'),
    lastUsed: path.join(entryDir, 'last-used'),
    files: path.join(entryDir, 'files'),
  };
}
