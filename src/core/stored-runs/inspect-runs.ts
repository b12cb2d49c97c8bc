// Reading stored evidence for people: list runs, open one run with its attempts.
import { hostname } from 'node:os';
import path from 'node:path';
import { InputError } from '../../errors.js';
import { listRuns, readRunRecord, type RunRecord } from '../../evidence/run-record.js';
import { readAttemptFile, type AttemptFile } from '../../evidence/attempt-record.js';
import { attemptDir, attemptPaths, runDir, runsDir } from '../../evidence/layout.js';
import { repoRootOrCwd } from '../../git/git.js';
import { processAliveSince } from '../../process/process-table.js';
import { needsHumanIn } from './needs-human.js';

/** Every stored run, newest first, the tasks that need a human, and the RUNNING runs whose process is gone. */
export async function listStoredRuns(cwd: string) {
  const root = await repoRootOrCwd(cwd);
  const needsHuman = [...(await needsHumanIn(root)).values()];
  const listed = await listRuns(root);
  const dead = listed.runs.filter(processGone).map((r) => r.runId);
  return { root, ...listed, needsHuman, dead };
}

/**
 * A run still RUNNING in its record whose process on this host is gone (SIGKILL, a crash, a reboot): only
 * `elenchos gc` seals it. A run on another host cannot be told from here and is taken as alive.
 */
export function processGone(record: RunRecord): boolean {
  return record.state === 'RUNNING' && record.host === hostname() && !processAliveSince(record.pid, record.pidStartTime);
}

/** One run: its record and each attempt's attempt.json (missing ones are null: the attempt crashed). */
export async function showStoredRun(cwd: string, runId: string) {
  const root = await repoRootOrCwd(cwd);
  const id = await resolveRunId(root, runId);
  const dir = runDir(root, id);
  const record = await readRunRecord(dir);
  const attempts = await readAttempts(dir, record);
  const needsHuman = (await needsHumanIn(root)).get(record.task.id) ?? null;
  const candidates = await readCandidates(dir, record);
  const groupRuns = record.group ? await runsOfGroup(root, record.group.id) : [];
  return { root, dir, record, attempts, needsHuman, candidates, groupRuns, dead: processGone(record) };
}

/**
 * Each attempt's attempt.json of the run in `dir`, checked against its schema; null where missing (the
 * attempt crashed) or unreadable (`evidence verify` says what changed).
 */
export async function readAttempts(dir: string, record: RunRecord): Promise<(AttemptFile | null)[]> {
  const attempts: (AttemptFile | null)[] = [];
  for (const summary of record.attempts) {
    attempts.push(await readAttemptFile(attemptPaths(attemptDir(dir, summary.number)).attemptJson).catch(() => null));
  }
  return attempts;
}

/** A best-of run's candidates, each with its own record and attempts (empty for a plain run; a candidate that never started has no record). */
export async function readCandidates(dir: string, record: RunRecord) {
  const out: { name: string; dir: string; record: RunRecord | null; attempts: (AttemptFile | null)[] }[] = [];
  for (const entry of record.candidates ?? []) {
    const cdir = path.join(dir, entry.dir);
    const candidate = await readRunRecord(cdir).catch(() => null);
    out.push({ name: entry.name, dir: cdir, record: candidate, attempts: candidate ? await readAttempts(cdir, candidate) : [] });
  }
  return out;
}

/** The run ids of every stored run of group `id`, oldest first (the runs one `run <task…>`, share or join made). */
export async function runsOfGroup(root: string, id: string): Promise<string[]> {
  const { runs } = await listRuns(root);
  return runs
    .filter((r) => r.group?.id === id)
    .map((r) => r.runId)
    .reverse();
}

/** Accepts a full run id, a unique prefix, or "latest". */
export async function resolveRunId(root: string, wanted: string): Promise<string> {
  const { runs } = await listRuns(root);
  if (wanted === 'latest') {
    const newest = runs[0];
    if (!newest) throw new InputError(`no runs under ${runsDir(root)}; start one with elenchos run <task.json>`);
    return newest.runId;
  }
  const matches = runs.filter((r) => r.runId.startsWith(wanted));
  if (matches.length === 1) return matches[0]!.runId;
  if (matches.length === 0) throw new InputError(`run "${wanted}" not found under ${runsDir(root)}; list runs with elenchos runs`);
  throw new InputError(`run "${wanted}" is ambiguous (${matches.length} runs start with it); give more of the id`);
}
