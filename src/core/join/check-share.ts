// The checks a share must pass on the joining machine before any of its candidates may be tried: this
// checkout's commit and tree, its contracts and locks, its signature when a key is set here, its place in
// a plan this checkout computes itself, and every run folder sealed as listed. The first problem is one line.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { checkRunEvidence } from '../../evidence/check-evidence.js';
import { manifestPath } from '../../evidence/layout.js';
import { hashFile } from '../../evidence/manifest.js';
import { readRunRecord, type RunRecord } from '../../evidence/run-record.js';
import { planCandidates } from '../best-of/plan.js';
import { buildPlan, describeEntry, samePlan, shareOfPlan, type PlanEntry } from '../many/plan.js';
import { SHARE_RUNS_DIR, shareSignatureHolds, type ShareManifest } from '../many/share-manifest.js';
import type { ShardInput } from '../verify/shard-metadata-schema.js';
import type { Here } from './here.js';

const short = (id: string) => `${id.slice(0, 12)}…`;

/** Null when the share may take part; else why not, in one line. */
export async function checkShare(dir: string, manifest: ShareManifest, here: Here): Promise<string | null> {
  for (const check of [checkCommit, checkSignature, checkInputs, checkPlace, checkRuns]) {
    const problem = await check(dir, manifest, here);
    if (problem !== null) return problem;
  }
  return null;
}

async function checkCommit(_dir: string, m: ShareManifest, here: Here): Promise<string | null> {
  if (m.commit !== here.head) return `is from another commit (${short(m.commit)}), not this checkout's ${short(here.head)}`;
  if (m.tree !== here.tree) return `names tree ${short(m.tree)} for commit ${short(m.commit)}, whose tree here is ${short(here.tree)}`;
  return null;
}

// With a key here, a share must carry a signature by the same key: its manifest cannot then be rewritten in transit.
async function checkSignature(_dir: string, m: ShareManifest, here: Here): Promise<string | null> {
  if (!here.signingKey) return null;
  if (m.hmac === undefined) return 'is not signed, but ELENCHOS_SIGNING_KEY is set here: run the shares with the same key';
  return shareSignatureHolds(m, here.signingKey) ? null : `is tampered: ${'elenchos-share.json'} does not match its signature`;
}

async function checkInputs(_dir: string, m: ShareManifest, here: Here): Promise<string | null> {
  let mine: ShardInput[];
  try {
    mine = await here.inputsOf(m.tasks);
  } catch (error) {
    return `names tasks this checkout cannot read (${(error as Error).message})`;
  }
  const key = (i: ShardInput) => `${i.path}\0${i.role}\0${i.sha256}`;
  const theirs = new Set(m.inputs.map(key));
  const ours = new Set(mine.map(key));
  const lacking = mine.find((i) => !theirs.has(key(i)));
  const extra = m.inputs.find((i) => !ours.has(key(i)));
  if (lacking) return `used other inputs than this checkout (${lacking.path}: sha256 ${lacking.sha256.slice(0, 12)}… here)`;
  if (extra) return `used other inputs than this checkout (${extra.path} with sha256 ${extra.sha256.slice(0, 12)}…)`;
  return null;
}

// The plan is computed here from the share's task list and best-of options with this checkout's config, so a
// share can neither invent candidates nor claim entries of another share's place.
async function checkPlace(_dir: string, m: ShareManifest, here: Here): Promise<string | null> {
  let candidates: string[] | null = null;
  if (m.bestOf.agents !== null || m.bestOf.bestOf !== null) {
    try {
      const options = { agents: m.bestOf.agents ?? undefined, bestOf: m.bestOf.bestOf ?? undefined };
      candidates = planCandidates(here.config, here.configLabel, options).map((c) => c.name);
    } catch (error) {
      return `asks for candidates this checkout's config cannot plan (${(error as Error).message})`;
    }
  }
  if (JSON.stringify(candidates) !== JSON.stringify(m.candidates)) return 'names other candidates than its best-of options plan here';
  const plan = buildPlan(m.tasks, candidates);
  if (!samePlan(plan, m.plan)) return 'carries a plan that is not the one its tasks and options make here';
  const mine = shareOfPlan(plan, { index: m.share.index, count: m.share.total });
  if (!samePlan(mine, m.assigned)) {
    const odd = m.assigned.find((e) => !mine.some((x) => x.task === e.task && x.candidate === e.candidate)) ?? mine[0];
    return `claims a place in the plan it does not have (share ${m.share.index}/${m.share.total} is not given ${odd ? describeEntry(odd) : 'these entries'})`;
  }
  return null;
}

/** Every run folder listed and no other, each sealed, of this commit and contract, holding exactly the share's entries. */
async function checkRuns(dir: string, m: ShareManifest, here: Here): Promise<string | null> {
  const runsDir = path.join(dir, SHARE_RUNS_DIR);
  const present = (await readdir(runsDir).catch(() => [] as string[])).sort();
  const listed = m.runs.map((r) => r.runId).sort();
  const stray = present.find((id) => !listed.includes(id));
  if (stray) return `holds run ${stray}, which its elenchos-share.json does not list`;
  const covered: PlanEntry[] = [];
  for (const run of m.runs) {
    const runDir = path.join(runsDir, run.runId);
    if (!present.includes(run.runId)) return `lists run ${run.runId}, which it does not hold`;
    const problem = await checkRun(runDir, run, here);
    if (problem !== null) return `run ${run.runId} (${run.task}): ${problem}`;
    for (const candidate of run.candidates ?? [null]) covered.push({ task: run.task, candidate });
  }
  const seen = new Set<string>();
  for (const e of covered) {
    const k = describeEntry(e);
    if (seen.has(k)) return `holds ${k} twice`;
    seen.add(k);
    if (!m.assigned.some((a) => describeEntry(a) === k)) return `holds ${k}, which is not its place in the plan`;
  }
  return null;
}

async function checkRun(runDir: string, run: ShareManifest['runs'][number], here: Here): Promise<string | null> {
  if ((await hashFile(manifestPath(runDir)).catch(() => null))?.sha256 !== run.manifestSha256)
    return 'is tampered: its manifest.json is not the one elenchos-share.json names';
  const evidence = await checkRunEvidence(runDir, { signingKey: here.signingKey });
  if (!evidence.ok) return `is tampered: ${evidence.problems.slice(0, 3).join('; ')}`;
  let record: RunRecord;
  try {
    record = await readRunRecord(runDir);
  } catch (error) {
    return `has no valid run.json (${(error as Error).message})`;
  }
  if (record.runId !== run.runId || record.task.file !== run.task) return `its run.json is of run ${record.runId} (${record.task.file})`;
  if (record.state === 'RUNNING') return 'never finished (its run.json is RUNNING)';
  const names = record.candidates?.map((c) => c.name) ?? null;
  if (JSON.stringify(names) !== JSON.stringify(run.candidates)) return 'holds other candidates than elenchos-share.json lists';
  const task = await here.taskContext(run.task);
  if (typeof task === 'string') return `its task cannot be checked here (${task})`;
  const records = [record];
  for (const c of record.candidates ?? []) {
    const own = await readRunRecord(path.join(runDir, c.dir)).catch(() => null);
    if (own) records.push(own);
    else if (c.state === 'VERIFIED') return `candidate ${c.name} claims VERIFIED but has no run.json of its own`;
  }
  const digest = (files: readonly { path: string; role: string; sha256: string }[]) =>
    JSON.stringify([...files].map((f) => `${f.path}\0${f.role}\0${f.sha256}`).sort());
  const locked = digest(task.locked);
  for (const r of records) {
    if (r.workspace.base !== here.head) return `ran on commit ${short(r.workspace.base)}, not ${short(here.head)}`;
    if (digest(r.contract.files) !== locked) return 'locked another contract (task, test or test lock) than this checkout has';
  }
  return null;
}
