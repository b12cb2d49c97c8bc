// The plan of a `run` of several tasks: one entry per (task, candidate) pair, in one order every machine
// computes alike, so that `--shard i/n` takes the same share of it anywhere (docs/scale.md#the-plan).
import { shardOf, type Shard } from '../select-tasks.js';

export interface PlanEntry {
  /** The task file, repository-relative (as run records name it). */
  task: string;
  /** The best-of candidate's name (`default-1`, `codex`…), or null for a plain run of the task. */
  candidate: string | null;
}

/**
 * Every task (sorted, as `selectTasks` returns them) times every candidate in the best-of plan's order;
 * with no best-of, one plain run per task.
 */
export function buildPlan(tasks: readonly string[], candidates: readonly string[] | null): PlanEntry[] {
  return tasks.flatMap((task) => (candidates ?? [null]).map((candidate) => ({ task, candidate })));
}

/** Share i of n: every n-th entry from the i-th, so each share gets a part of every task's candidates. */
export function shareOfPlan(plan: readonly PlanEntry[], shard: Shard): PlanEntry[] {
  return shardOf(plan, shard);
}

/** One entry as one line (`tasks/a.json default-2`), for messages and for comparing plans. */
export function describeEntry(entry: PlanEntry): string {
  return entry.candidate === null ? entry.task : `${entry.task} ${entry.candidate}`;
}

/** Whether two plans are the same entries in the same order. */
export function samePlan(a: readonly PlanEntry[], b: readonly PlanEntry[]): boolean {
  return a.length === b.length && a.every((e, i) => e.task === b[i]!.task && e.candidate === b[i]!.candidate);
}
