// The verifying join of `merge`: shard outputs count as one verification only if they are exactly shards
// 1..n of one n, of one commit and one set of inputs, and every planned task was reported exactly once.
import type { ShardInput, ShardMetadata } from './shard-metadata-schema.js';

/** What one task's entry in a shard output says about what it verified (a refused task says nothing). */
export interface ReportedTask {
  file: string;
  /** The commit its run verified (run.json `workspace.base`); null for a task refused before its run. */
  base: string | null;
  /** Its run's contract files (`contract.files`), empty for a refused task. */
  contract: readonly { path: string; role: string; sha256: string }[];
}

export interface ShardOutput {
  /** The file as given to merge. */
  file: string;
  metadata: ShardMetadata;
  reported: readonly ReportedTask[];
}

export type JoinResult = { ok: true } | { ok: false; problem: string };

/** Checks that `outputs` are one whole verification; the first problem found, as one line naming the shard. */
export function joinShards(outputs: readonly ShardOutput[]): JoinResult {
  for (const check of [checkShardSet, checkSameCommit, checkSameInputs, checkPlans, checkReports]) {
    const problem = check(outputs);
    if (problem !== null) return { ok: false, problem };
  }
  return { ok: true };
}

const name = (o: ShardOutput) => `shard ${o.metadata.shard.index}/${o.metadata.shard.total}`;
const short = (id: string | null) => (id === null ? 'none' : `${id.slice(0, 12)}…`);

/** Exactly 1..n of one n. */
function checkShardSet(outputs: readonly ShardOutput[]): string | null {
  const totals = [...new Set(outputs.map((o) => o.metadata.shard.total))];
  if (totals.length > 1) {
    const shown = outputs.map((o) => `${o.file} is ${name(o)}`).join(', ');
    return `the shards are of different splits (${shown}); merge the outputs of one verify matrix`;
  }
  const total = totals[0]!;
  const byIndex = new Map<number, ShardOutput[]>();
  for (const o of outputs) byIndex.set(o.metadata.shard.index, [...(byIndex.get(o.metadata.shard.index) ?? []), o]);
  for (const [index, same] of [...byIndex].sort((a, b) => a[0] - b[0])) {
    if (same.length > 1) return `shard ${index}/${total} given ${same.length} times (${same.map((o) => o.file).join(', ')})`;
  }
  // `total` is at most MAX_SHARDS (the metadata's schema): the line names ten missing shards at most.
  const missing = Array.from({ length: total }, (_, i) => i + 1).filter((i) => !byIndex.has(i));
  if (missing.length === 1) return `shard ${missing[0]}/${total} missing: its output was not given (did that job fail before writing it?)`;
  const more = missing.length > 10 ? ` and ${missing.length - 10} more` : '';
  if (missing.length > 1)
    return `shards ${missing
      .slice(0, 10)
      .map((i) => `${i}/${total}`)
      .join(', ')}${more} missing: their outputs were not given`;
  return null;
}

/** One commit and one tree, and every run verified that commit. */
function checkSameCommit(outputs: readonly ShardOutput[]): string | null {
  const sorted = bySharding(outputs);
  const noCommit = sorted.find((o) => o.metadata.commit === null);
  if (noCommit) return `${name(noCommit)} (${noCommit.file}) has no commit: verify ran outside a git repository or before the first commit`;
  for (const field of ['commit', 'tree'] as const) {
    const usual = mostCommon(sorted.map((o) => o.metadata[field]!));
    const odd = sorted.find((o) => o.metadata[field] !== usual);
    if (odd) return `${name(odd)} is for ${field} ${short(odd.metadata[field])}, the others for ${short(usual)}`;
  }
  for (const o of sorted) {
    const stray = o.reported.find((r) => r.base !== null && r.base !== o.metadata.commit);
    if (stray)
      return `${name(o)}: the run of ${stray.file} verified commit ${short(stray.base)}, not the shard's ${short(o.metadata.commit)}`;
  }
  return null;
}

/** One task list and the same digests of config, contracts, tests and locks; each run used those. */
function checkSameInputs(outputs: readonly ShardOutput[]): string | null {
  const sorted = bySharding(outputs);
  const usualTasks = mostCommon(sorted.map((o) => JSON.stringify(o.metadata.tasks)));
  const oddTasks = sorted.find((o) => JSON.stringify(o.metadata.tasks) !== usualTasks);
  if (oddTasks) {
    const usual = JSON.parse(usualTasks) as string[];
    const extra = oddTasks.metadata.tasks.find((t) => !usual.includes(t));
    const lacking = usual.find((t) => !oddTasks.metadata.tasks.includes(t));
    const which = extra ? `${extra} is only in its list` : `${lacking} is not in its list`;
    return `${name(oddTasks)} was split from other task files than the others (${which})`;
  }
  const key = (inputs: readonly ShardInput[]) => JSON.stringify(inputs.map((i) => [i.path, i.role, i.sha256]));
  const usualInputs = mostCommon(sorted.map((o) => key(o.metadata.inputs)));
  const oddInputs = sorted.find((o) => key(o.metadata.inputs) !== usualInputs);
  if (oddInputs) {
    const usual = sorted.find((o) => key(o.metadata.inputs) === usualInputs)!;
    return `${name(oddInputs)} used other inputs than the others (${inputDifference(oddInputs.metadata.inputs, usual.metadata.inputs)})`;
  }
  for (const o of sorted) {
    const declared = new Map(o.metadata.inputs.map((i) => [i.path, i.sha256]));
    for (const r of o.reported) {
      const used = r.contract.find((c) => ['task', 'test', 'test-lock'].includes(c.role) && declared.get(c.path) !== c.sha256);
      if (used)
        return `${name(o)}: the run of ${r.file} used ${used.path} with sha256 ${short(used.sha256)}, not the ${short(declared.get(used.path) ?? null)} the shard declares`;
    }
  }
  return null;
}

/** The first input that differs, in path order. */
function inputDifference(odd: readonly ShardInput[], usual: readonly ShardInput[]): string {
  const theirs = new Map(usual.map((i) => [i.path, i]));
  const mine = new Map(odd.map((i) => [i.path, i]));
  for (const p of [...new Set([...mine.keys(), ...theirs.keys()])].sort()) {
    const a = mine.get(p);
    const b = theirs.get(p);
    if (!b) return `${p} only there`;
    if (!a) return `${p} missing there`;
    if (a.sha256 !== b.sha256) return `${p} has sha256 ${short(a.sha256)} there, ${short(b.sha256)} in the others`;
    if (a.role !== b.role) return `${p} is a ${a.role} there, a ${b.role} in the others`;
  }
  return 'their order differs';
}

/** The shards' plans split the task list: each task planned by exactly one shard. */
function checkPlans(outputs: readonly ShardOutput[]): string | null {
  const sorted = bySharding(outputs);
  const tasks = new Set(sorted[0]!.metadata.tasks);
  // "0/0 VERIFIED" is no verdict: shards split from an empty list verified nothing.
  if (tasks.size === 0) return 'the shards were split from an empty task list: nothing was verified (check "tasks" in the config)';
  const plannedBy = new Map<string, ShardOutput>();
  for (const o of sorted) {
    for (const task of o.metadata.plan) {
      if (!tasks.has(task)) return `${name(o)} plans ${task}, which is not in the task list it was split from`;
      const other = plannedBy.get(task);
      if (other) return `${task} is planned by both ${name(other)} and ${name(o)}`;
      plannedBy.set(task, o);
    }
  }
  const orphan = [...tasks].find((t) => !plannedBy.has(t));
  return orphan ? `${orphan} is planned by no shard` : null;
}

/** Every planned task reported once, by the shard that planned it, and nothing else. */
function checkReports(outputs: readonly ShardOutput[]): string | null {
  const sorted = bySharding(outputs);
  const reportedBy = new Map<string, ShardOutput>();
  for (const o of sorted) {
    const plan = new Set(o.metadata.plan);
    for (const r of o.reported) {
      const earlier = reportedBy.get(r.file);
      if (earlier) return `${r.file} reported twice (${earlier === o ? `both by ${name(o)}` : `by ${name(earlier)} and ${name(o)}`})`;
      if (!plan.has(r.file)) return `${name(o)} reported ${r.file}, which it did not plan`;
      reportedBy.set(r.file, o);
    }
  }
  for (const o of sorted) {
    const lacking = o.metadata.plan.find((t) => !reportedBy.has(t));
    if (lacking) return `${lacking} planned for ${name(o)} was not reported (the shard ended before it: run that shard again)`;
  }
  return null;
}

function bySharding(outputs: readonly ShardOutput[]): ShardOutput[] {
  return [...outputs].sort((a, b) => a.metadata.shard.index - b.metadata.shard.index);
}

/** The value most shards agree on (the lowest shard's on a tie), so the odd one out is named. */
function mostCommon(values: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best = values[0]!;
  for (const v of values) if (counts.get(v)! > counts.get(best)!) best = v;
  return best;
}
