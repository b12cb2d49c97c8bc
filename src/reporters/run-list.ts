// Human rendering of `elenchos runs`.
import { writeHuman, type CliIO } from '../cli-io.js';
import type { NeedsHuman } from '../core/stored-runs/needs-human.js';
import type { RunRecord, UnreadableRun } from '../evidence/run-record.js';

/** `$0.0421`, or `cost not reported` when the agent reported no dollars (an unknown amount, not $0). */
export function describeDollars(agentUsd: number | null | undefined): string {
  return typeof agentUsd === 'number' ? `$${agentUsd}` : 'cost not reported';
}

/**
 * What the agent spent, for `show` and the report: `agent $0.04 (4 turn(s), 1200 input / 300 output tokens)`,
 * `agent cost not reported (…)` when some usage but no dollars came, `agent reported no cost nor usage` (a
 * command agent reports nothing: zeros would read as measured), or `no agent ran` (a verify).
 * `reportsDollars`: whether any attempt's agent did.
 */
export function describeAgentSpend(
  record: Pick<RunRecord, 'mode'> & { cost: NonNullable<RunRecord['cost']> },
  reportsDollars: boolean,
): string {
  const { cost } = record;
  if (record.mode === 'verify') return 'no agent ran';
  const dollars = describeDollars(reportsDollars ? cost.agentUsd : null);
  if (!reportsDollars && cost.agentTurns + cost.inputTokens + cost.outputTokens === 0) return 'agent reported no cost nor usage';
  return `agent ${dollars} (${cost.agentTurns} turn(s), ${cost.inputTokens} input / ${cost.outputTokens} output tokens)`;
}

/**
 * Whether a run's Kane credits are worth a word: a Kane run (even at 0), never a Playwright or command run
 * (`Kane 0 credit(s)` there reads as if Kane ran). A record from before `verifier` was kept: when it spent some.
 */
export function showsKaneCredits(record: Pick<RunRecord, 'verifier' | 'cost'>): boolean {
  return record.verifier ? record.verifier.type === 'kane' : (record.cost?.kaneCredits ?? 0) > 0;
}

/** `  $0.0421, 11 credits` (what a run spent), empty when it spent nothing anyone reported. */
export function describeSpend(cost: RunRecord['cost']): string {
  if (!cost) return '';
  const parts = [
    cost.agentUsd !== null && cost.agentUsd > 0 ? `$${cost.agentUsd}` : '',
    cost.kaneCredits > 0 ? `${cost.kaneCredits} credits` : '',
  ].filter(Boolean);
  return parts.length > 0 ? `  ${parts.join(', ')}` : '';
}

/** `group <id>` (with the share, or `joined`): which command a run went with (docs/scale.md). */
export function describeGroup(group: NonNullable<RunRecord['group']>): string {
  const how = group.share ? ` share ${group.share.index}/${group.share.total}` : group.kind === 'join' ? ' joined' : '';
  return `group ${group.id}${how}`;
}

/** One line per run: id, state and reason, task, attempts, duration, spend, group. */
export function renderRunList(
  runs: readonly RunRecord[],
  unreadable: readonly UnreadableRun[],
  io: CliIO,
  needsHuman: readonly NeedsHuman[] = [],
  dead: ReadonlySet<string> = new Set(),
): void {
  if (runs.length === 0 && unreadable.length === 0) {
    writeHuman(io.stdout, 'no runs yet (elenchos run <task.json> stores its evidence under .elenchos/runs/)');
    return;
  }
  for (const run of runs) {
    const state = `${run.state}${run.reason ? ` ${run.reason}` : ''}`;
    const duration =
      run.durationMs !== null
        ? `${(run.durationMs / 1000).toFixed(1)}s`
        : dead.has(run.runId)
          ? `not running: its process (pid ${run.pid}) is gone; elenchos gc seals it ABANDONED`
          : 'running?';
    const flag = needsHuman.some((n) => n.lastRunId === run.runId) ? '  NEEDS_HUMAN' : '';
    const group = run.group ? `  ${describeGroup(run.group)}` : '';
    writeHuman(
      io.stdout,
      `${run.runId}  ${state.padEnd(28)} ${run.mode.padEnd(6)} ${run.task.id.padEnd(20)} ${run.candidates ? `best of ${run.candidates.length}${run.winner ? `, winner ${run.winner.name}` : ''}` : `${run.attempts.length} attempt(s)`}  ${duration}${describeSpend(run.cost)}${group}${flag}`,
    );
  }
  for (const bad of unreadable) writeHuman(io.stdout, `${bad.runId}  UNREADABLE  ${bad.message.split('\n')[0]}`);
  for (const flagged of needsHuman) {
    writeHuman(io.stdout, `NEEDS_HUMAN ${flagged.taskId}: ${flagged.reasons.join('; ')} — look, then elenchos ack <task file>`);
  }
}
