// Runs `playwright test` for one spec against the running app, and classifies what it reports.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { childEnv } from '../../process/child-env.js';
import { commandWords } from '../../process/command-string.js';
import { startProcess, type SpawnResult } from '../../process/spawn.js';
import type { CriteriaMap } from '../../contract/criteria-map.js';
import type { StartedVerification, VerificationResult, VerifierProgress, VerifyContext } from '../types.js';
import { keepAttachments } from './attachments.js';
import { resolveBrowserPath } from './browser-path.js';
import { classifyPlaywright } from './classify.js';
import { writePlaywrightConfig, type PlaywrightFiles } from './generate-config.js';
import { PROGRESS_MARK, START_GATE_ENV } from './reporter/progress-protocol.js';
import { findUserConfig } from './user-config.js';
import { readJsonReport, type ReportTest } from './json-report.js';
import { pairReportedTests } from './declared-tests.js';
import { browserMarker, killMarkedProcesses } from './reap-browsers.js';
import { forgetKeptListing } from './kept-listings.js';
import { readTraceFacts } from './trace-url.js';
import { leaseTransformCache, type TransformCacheLease } from './transform-cache.js';
import { nearestTsconfig } from './spec-imports.js';
import { playwrightPaths, verifierFiles } from '../../evidence/layout.js';

const MAPPING_DISAGREEMENTS = new Set(['test_missing', 'test_undeclared', 'criteria_mismatch']);

/** Retries by default, so that a test passing only on its second try shows up as flaky (INCONCLUSIVE). */
export const DEFAULT_RETRIES = 1;

/** The verifier's `verify`: generated config in the evidence dir, own process group, JSON report, classification. */
export async function runPlaywright(ctx: VerifyContext): Promise<VerificationResult> {
  return (await startPlaywright(ctx, false)).run();
}

/**
 * The verifier's `start`: the runner starts now (while the app starts), loads the configs and compiles
 * the spec, and waits before the first test until `run()` (progress-reporter.ts reads `go` on stdin).
 */
export function startPlaywrightEarly(ctx: VerifyContext): Promise<StartedVerification> {
  return startPlaywright(ctx, true);
}

async function startPlaywright(ctx: VerifyContext, gated: boolean): Promise<StartedVerification> {
  const browserPath = resolveBrowserPath(ctx.browserPath, ctx.baseEnv);
  const marker = browserMarker(randomUUID());
  const files = await writePlaywrightConfig({
    testFile: ctx.testFile,
    evidenceDir: ctx.evidenceDir,
    baseURL: ctx.url,
    browserPath,
    extraArgs: [marker],
    retries: DEFAULT_RETRIES,
    trace: retriesOf(ctx.args) > 0 ? 'on-first-retry' : 'retain-on-failure',
    headed: ctx.iterate?.headed || ctx.iterate?.debug,
    userConfig: userConfigPath(ctx.cwd),
  });
  // What is read back after the run must be what this run's Playwright wrote: anything already there (an
  // agent can find the run's folder under .elenchos/runs/ and plant a passing report) goes first.
  await Promise.all([files.report, files.notes].map((file) => rm(file, { force: true })));
  const { command, args } = playwrightCommand(ctx.cwd, ctx.command);
  // Extra args go last, so `verifier.args: ["--retries=0"]` overrides the generated config.
  const tsconfig = await pinnedTsconfig(ctx.cwd, ctx.testFileLabel, ctx.evidenceDir);
  const argv = [...args, 'test', '--config', files.config, '--tsconfig', tsconfig, ...ctx.args, ...iterateArgs(ctx.iterate)];
  // Compiled only into a cache no agent could have written (transform-cache.ts), never the shared default.
  const cache = await leaseTransformCache();
  const running = startProcess(command, argv, {
    cwd: ctx.cwd,
    env: buildEnv(ctx, cache.cache, gated),
    // A person stepping through in the Inspector takes as long as they take; Ctrl-C still stops it.
    timeoutMs: ctx.iterate?.debug ? undefined : ctx.timeoutMs,
    signal: ctx.signal,
    stdoutFile: playwrightPaths(ctx.evidenceDir).stdout,
    stderrFile: verifierFiles(ctx.evidenceDir).verifierStderr,
    onStdoutLine: (line) => forwardProgress(line, ctx.onProgress, ctx.iterate?.grep != null ? ctx.map.steps : null),
    gated,
  });
  let state: 'waiting' | 'running' | 'abandoned' = 'waiting';
  return {
    run: async () => {
      if (state !== 'waiting') throw new Error(`the Playwright run was already ${state}`);
      state = 'running';
      running.release();
      return finishPlaywright(ctx, { command, argv, files, marker, browserPath, cache }, await running.done);
    },
    abandon: async () => {
      if (state !== 'waiting') return;
      state = 'abandoned';
      await running.stop();
      await running.done;
      killMarkedProcesses(marker);
      await cache.discard();
    },
  };
}

interface StartedRun {
  command: string;
  argv: string[];
  files: PlaywrightFiles;
  marker: string;
  browserPath: string | undefined;
  cache: TransformCacheLease;
}

/** After the runner ended: leftover browsers, the report and its classification. */
async function finishPlaywright(ctx: VerifyContext, run: StartedRun, result: SpawnResult): Promise<VerificationResult> {
  const { command, argv, files, marker, browserPath, cache } = run;
  const leftoverBrowsers = killMarkedProcesses(marker);
  await cache.release();
  const configNotes = await readNotes(files.notes);
  for (const message of configNotes) ctx.onProgress?.({ kind: 'note', message });
  const report = await readJsonReport(files.report);
  if (report.ok) {
    await keepAttachments(report.report, ctx.evidenceDir);
    await readTraceFacts(report.report);
  }
  const reported = report.ok ? pairReportedTests(ctx.map.steps, report.report.tests) : new Map<number, ReportTest>();
  // With --grep the tests it left out did not run: they are not "missing from the report".
  const map = ctx.iterate?.grep != null && report.ok ? onlySteps(ctx.map, new Set(reported.keys())) : ctx.map;
  const classified = classifyPlaywright({
    root: ctx.cwd,
    appUrl: ctx.url,
    criteria: ctx.criteria,
    map,
    report,
    ...(ctx.iterate?.grep != null ? { filtered: `--grep ${JSON.stringify(ctx.iterate.grep)}` } : {}),
    process: {
      exitCode: result.exitCode,
      timedOut: result.timedOut,
      aborted: result.aborted,
      spawnError: result.spawnError ? `${command}: ${result.spawnError.message}` : null,
      stderrTail: result.stderrTail,
      timeoutMs: ctx.timeoutMs,
    },
  });
  // The report disagrees with the listing: whatever made it stale, the next verify lists again.
  if (classified.findings.some((f) => MAPPING_DISAGREEMENTS.has(f.reasonCode ?? ''))) await forgetKeptListing(ctx.testFileLabel);
  return {
    status: classified.status,
    summary: classified.summary,
    criteria: classified.criteria,
    findings: classified.findings,
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    durationMs: result.durationMs,
    details: {
      command: [command, ...argv],
      browserPath: browserPath ?? null,
      config: files.config,
      configNotes,
      report: files.report,
      outputDir: files.outputDir,
      browserMarker: marker,
      leftoverBrowsers,
      tests: ctx.map.steps.map((step) => ({
        index: step.index,
        title: step.heading,
        outcome: classified.outcomes.get(step.index)?.kind ?? 'not_run',
        // Every try of the test (retries included), as Playwright measured it; null when it did not run.
        durationMs: testDuration(reported.get(step.index)),
      })),
    },
  };
}

/**
 * The one tsconfig Playwright may use for every file it compiles (`--tsconfig`): the repository's nearest
 * to the spec (locked with the contract), else an empty one written into `dir`. Without it Playwright
 * looks for a tsconfig.json beside each file it loads, up to the filesystem root, and a `paths` entry in
 * any of them (one an agent added, or one above the worktree) can point '@playwright/test' at a fake.
 */
export async function pinnedTsconfig(cwd: string, testFileLabel: string, dir: string): Promise<string> {
  const nearest = await nearestTsconfig(cwd, testFileLabel);
  if (nearest) return path.join(cwd, nearest);
  const empty = path.join(dir, 'tsconfig.elenchos.json');
  await writeFile(empty, '{}\n');
  return empty;
}

/** The retries the run will use: the last `--retries` in `verifier.args`, else DEFAULT_RETRIES. */
export function retriesOf(args: readonly string[]): number {
  let retries = DEFAULT_RETRIES;
  args.forEach((arg, i) => {
    const value = arg.startsWith('--retries=') ? arg.slice('--retries='.length) : arg === '--retries' ? args[i + 1] : undefined;
    if (value !== undefined && /^\d+$/.test(value)) retries = Number(value);
  });
  return retries;
}

/** Absolute path of the project's playwright.config in `cwd`, or null. */
export function userConfigPath(cwd: string): string | null {
  const name = findUserConfig(cwd);
  return name ? path.join(cwd, name) : null;
}

async function readNotes(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8').catch(() => '[]');
  try {
    const notes: unknown = JSON.parse(text);
    return Array.isArray(notes) ? notes.filter((n): n is string => typeof n === 'string') : [];
  } catch {
    return [];
  }
}

/** Playwright's own flags for someone iterating on a spec (`verify --verifier-only`). */
export function iterateArgs(iterate: VerifyContext['iterate']): string[] {
  if (!iterate) return [];
  return [
    ...(iterate.headed ? ['--headed'] : []),
    ...(iterate.grep !== null ? ['--grep', iterate.grep] : []),
    ...(iterate.debug ? ['--debug'] : []),
  ];
}

/**
 * The map with only the steps that ran, for matching the report; criteria keep all their steps, so one
 * whose test was left out is UNVERIFIED ("did not run"), never PASS on a subset.
 */
function onlySteps(map: CriteriaMap, ran: ReadonlySet<number>): CriteriaMap {
  return { ...map, steps: map.steps.filter((s) => ran.has(s.index)) };
}

function testDuration(test: ReportTest | undefined): number | null {
  const tries = test?.results.map((r) => r.durationMs).filter((ms): ms is number => ms !== null) ?? [];
  return tries.length > 0 ? tries.reduce((a, b) => a + b, 0) : null;
}

/**
 * The Playwright executable: `verifier.command` (split into words as a shell would, e.g. `npx playwright`), else the
 * nearest `node_modules/.bin/playwright` from `cwd` upwards (the same folders Node searches for the
 * spec's `@playwright/test`: a worktree under `.elenchos/workspaces/` finds the checkout's), else
 * `npx --no playwright` (which never installs anything).
 */
export function playwrightCommand(cwd: string, configured: string | undefined): { command: string; args: string[] } {
  if (configured && configured.trim() !== '') {
    const [command = '', ...args] = commandWords(configured);
    if (path.basename(command) === 'npx' && args.length === 0) args.push('--no', 'playwright');
    return { command, args };
  }
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const local = path.join(dir, 'node_modules', '.bin', 'playwright');
    if (existsSync(local)) return { command: local, args: [] };
    if (path.dirname(dir) === dir) break;
  }
  return { command: 'npx', args: ['--no', 'playwright'] };
}

/**
 * The child's environment: the inherited few from `baseEnv`, the verifier's `env`, then `extra`, colours
 * off. `PWTEST_CACHE_DIR` (Playwright's transform cache) is never taken from `env`: without a private
 * one of `extra`, Playwright would read compiled specs from a folder anyone of this user can write.
 */
export function playwrightEnv(baseEnv: NodeJS.ProcessEnv, env: Record<string, string>, extra: Record<string, string>): NodeJS.ProcessEnv {
  const own = Object.fromEntries(Object.entries(env).filter(([key]) => key !== 'PWTEST_CACHE_DIR'));
  // Plain messages in the report and logs; classification reads them. Node's compile cache off: what it
  // stored is run without the source being read again (Playwright's own transform cache is private).
  return childEnv('playwright', { baseEnv, set: [own, extra, { FORCE_COLOR: '0', NO_COLOR: '1', NODE_DISABLE_COMPILE_CACHE: '1' }] });
}

function buildEnv(ctx: VerifyContext, cacheDir: string, gated: boolean): NodeJS.ProcessEnv {
  const variables = Object.fromEntries(Object.entries(ctx.variables).map(([k, v]) => [k, typeof v === 'string' ? v : v.value]));
  return playwrightEnv(ctx.baseEnv, ctx.env, {
    ELENCHOS_BASE_URL: ctx.url,
    ELENCHOS_VARIABLES: JSON.stringify(variables),
    PWTEST_CACHE_DIR: cacheDir,
    // Always set, so that a `verifier.env` cannot make the reporter wait for a signal no one sends.
    [START_GATE_ENV]: gated ? 'stdin' : '',
  });
}

/**
 * One progress line of the reporter, as a step of the listing. The reporter numbers the tests of its own
 * run; a run filtered by `--grep` runs fewer, so there a test is found among the listed steps by its
 * heading (when exactly one has it).
 */
function forwardProgress(
  line: string,
  onProgress: ((p: VerifierProgress) => void) | undefined,
  filteredFrom: readonly { index: number; heading: string }[] | null,
): void {
  if (!onProgress || !line.startsWith(PROGRESS_MARK)) return;
  let event: { event?: string; index?: number | null; title?: string; retry?: number; status?: string; durationMs?: number };
  try {
    event = JSON.parse(line.slice(PROGRESS_MARK.length));
  } catch {
    return;
  }
  const heading = event.title ?? '';
  const named = filteredFrom?.filter((s) => s.heading === heading) ?? [];
  const step = named.length === 1 ? named[0]!.index : (event.index ?? 0);
  if (event.event === 'begin') {
    if ((event.retry ?? 0) > 0) onProgress({ kind: 'note', message: `retrying test ${step} (${heading}), retry #${event.retry}` });
    onProgress({ kind: 'step-start', step, heading });
  } else if (event.event === 'end') {
    const seconds = typeof event.durationMs === 'number' ? event.durationMs / 1000 : null;
    onProgress({ kind: 'step-end', step, heading, status: event.status === 'passed' ? 'passed' : 'failed', durationSeconds: seconds });
  }
}
