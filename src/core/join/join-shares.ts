// `elenchos join <export…>`: shares computed anywhere, judged here. Each export is opened as a stranger's
// file and checked against this checkout (check-share.ts); shares that are duplicated or of another split
// are named and set aside; then each task's candidates are re-verified here (join-task.ts) and recorded.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { ExitCode, ShardSetError } from '../../errors.js';
import { elenchosDir } from '../../evidence/layout.js';
import type { JoinInfo, RunGroup } from '../../evidence/run-group.js';
import { newRunId } from '../../evidence/run-id.js';
import { ensureExcluded } from '../../git/worktree.js';
import type { FinalRunState } from '../../states.js';
import { signingKeyFor } from '../../util/signing-key.js';
import type { RunReporter } from '../events.js';
import type { TaskOutcome } from '../many/run-many.js';
import { describeEntry, type PlanEntry } from '../many/plan.js';
import { worstExitCode } from '../run/decide.js';
import { checkShare } from './check-share.js';
import { readHere, type Here } from './here.js';
import { joinTask, type AcceptedShare } from './join-task.js';
import { openExport } from './read-export.js';

export interface JoinOptions {
  cwd: string;
  /** The export files, as given. */
  files: string[];
  configFile?: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  reporterFor: (task: string, candidate: string) => RunReporter;
  onLine?: (line: string) => void;
  onTaskEnd?: (task: TaskOutcome) => void;
}

export interface JoinResult {
  root: string;
  group: RunGroup;
  shares: JoinInfo['shares'];
  /** Everything named: missing, duplicated, tampered, misplaced or foreign shares. */
  problems: string[];
  tasks: TaskOutcome[];
  state: FinalRunState;
  exitCode: number;
}

interface Seen {
  file: string;
  dir: string | null;
  manifest: AcceptedShare['manifest'] | null;
  problem: string | null;
}

/** Opens, checks and joins the shares; re-verifies each task's best candidate here. Throws only when no share can be used. */
export async function joinShares(options: JoinOptions): Promise<JoinResult> {
  const here = await readHere({
    cwd: options.cwd,
    configFile: options.configFile,
    env: options.env,
    signingKey: signingKeyFor(options.env),
  });
  const id = newRunId();
  const work = path.join(elenchosDir(here.root), 'join', id);
  await ensureExcluded(here.root);
  try {
    const seen: Seen[] = [];
    for (const [i, file] of options.files.entries())
      seen.push(await openAndCheck(path.resolve(options.cwd, file), file, path.join(work, String(i + 1)), here));
    setAsideOdd(seen);
    const accepted = seen.filter((s): s is Seen & AcceptedShare => s.problem === null);
    const problems = seen.filter((s) => s.problem !== null).map((s) => `${s.file}: ${s.problem}`);
    if (accepted.length === 0) throw new ShardSetError(`join refused: no share can be used (${problems.join('; ')})`);
    const first = accepted[0]!.manifest;
    const missing = missingShares(seen, first.share.total);
    problems.push(
      ...missing.map((i) => `share ${i}/${first.share.total} missing: its export was not given (did that job fail before exporting?)`),
    );
    const shares: JoinInfo['shares'] = seen.map((s) => ({
      share: s.manifest?.share ?? null,
      file: s.file,
      status: s.problem === null ? 'accepted' : 'rejected',
      problem: s.problem,
      host: s.manifest?.host ?? null,
    }));
    for (const p of problems) options.onLine?.(`join: ${p}`);
    const group: RunGroup = { id, kind: 'join', tasks: first.tasks.length };
    const tasks: TaskOutcome[] = [];
    for (const label of first.tasks) {
      const outcome = await joinOne(options, here, { label, plan: first.plan, accepted, seen, group, shares, problems });
      tasks.push(outcome);
      options.onTaskEnd?.(outcome);
    }
    // A share set aside for what it is (tampered, foreign, misplaced, duplicated), not only for being absent, is a
    // finding of its own: exit 4 even when every task still found a winner among the others.
    const rejected = seen.some((s) => s.problem !== null);
    const exitCode = worstExitCode([...tasks.map((t) => t.exitCode), ...(rejected ? [ExitCode.INCOMPLETE] : [])]);
    return {
      root: here.root,
      group,
      shares,
      problems,
      tasks,
      state: overallState(tasks),
      exitCode: options.signal.aborted ? ExitCode.INTERRUPTED : exitCode,
    };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function openAndCheck(file: string, shown: string, dest: string, here: Here): Promise<Seen> {
  const opened = await openExport(file, dest);
  if (!opened.ok) return { file: shown, dir: null, manifest: null, problem: opened.problem };
  const problem = await checkShare(opened.dir, opened.manifest, here);
  return { file: shown, dir: opened.dir, manifest: opened.manifest, problem };
}

/**
 * Among the shares that passed their own checks: one split (the total most of them name) and one plan, and
 * each place at most once. A place given twice is used from neither copy: which one is genuine cannot be told.
 */
function setAsideOdd(seen: Seen[]): void {
  const ok = seen.filter((s) => s.problem === null && s.manifest);
  const usual = mostCommon(ok.map((s) => `${s.manifest!.share.total}\0${JSON.stringify(s.manifest!.plan)}`));
  for (const s of ok) {
    const key = `${s.manifest!.share.total}\0${JSON.stringify(s.manifest!.plan)}`;
    if (key !== usual)
      s.problem = `is share ${s.manifest!.share.index}/${s.manifest!.share.total} of another split or plan than the others`;
  }
  const byIndex = new Map<number, Seen[]>();
  for (const s of seen.filter((x) => x.problem === null))
    byIndex.set(s.manifest!.share.index, [...(byIndex.get(s.manifest!.share.index) ?? []), s]);
  for (const [index, same] of byIndex) {
    if (same.length < 2) continue;
    const files = same.map((s) => s.file).join(', ');
    for (const s of same)
      s.problem = `is share ${index}/${s.manifest!.share.total}, given ${same.length} times (${files}): neither copy is used`;
  }
}

function missingShares(seen: readonly Seen[], total: number): number[] {
  const named = new Set(seen.filter((s) => s.manifest && s.manifest.share.total === total).map((s) => s.manifest!.share.index));
  return Array.from({ length: total }, (_, i) => i + 1).filter((i) => !named.has(i));
}

interface OneTask {
  label: string;
  plan: PlanEntry[];
  accepted: AcceptedShare[];
  seen: readonly Seen[];
  group: RunGroup;
  shares: JoinInfo['shares'];
  problems: string[];
}

async function joinOne(options: JoinOptions, here: Here, t: OneTask): Promise<TaskOutcome> {
  const task = await here.taskContext(t.label);
  if (typeof task === 'string') return { task: t.label, record: null, runDir: null, exitCode: ExitCode.INPUT, notRun: task };
  const total = t.accepted[0]!.manifest.share.total;
  const why = (entry: PlanEntry) => {
    const index = (t.plan.findIndex((e) => e.task === entry.task && e.candidate === entry.candidate) % total) + 1;
    const rejected = t.seen.find((s) => s.manifest?.share.index === index && s.problem !== null);
    return rejected
      ? `share ${index}/${total} rejected (${rejected.file}: ${rejected.problem}); ${describeEntry(entry)} not used`
      : `share ${index}/${total} missing; ${describeEntry(entry)} was never reported`;
  };
  const result = await joinTask({
    task,
    entries: t.plan.filter((e) => e.task === t.label),
    accepted: t.accepted,
    why,
    group: t.group,
    join: { shares: t.shares, problems: t.problems },
    cwd: options.cwd,
    configFile: options.configFile,
    env: options.env,
    signal: options.signal,
    reporterFor: (candidate) => options.reporterFor(t.label, candidate),
    onLine: options.onLine,
  });
  return { task: t.label, record: result.record, runDir: result.runDir, exitCode: result.exitCode, notRun: null };
}

function overallState(tasks: readonly TaskOutcome[]): FinalRunState {
  const states = tasks.map((t) => (t.record && t.record.state !== 'RUNNING' ? t.record.state : 'ERROR'));
  if (states.includes('ERROR')) return 'ERROR';
  if (states.includes('FAILED')) return 'FAILED';
  return 'VERIFIED';
}

/** The value most shares agree on (the first on a tie). */
function mostCommon(values: readonly string[]): string | undefined {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best = values[0];
  for (const v of values) if (counts.get(v)! > counts.get(best!)!) best = v;
  return best;
}
