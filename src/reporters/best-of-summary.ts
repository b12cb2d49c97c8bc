// A best-of run for people: one line per candidate (state, attempts, change, cost, time, criteria), then the choice.
import type { CandidateSummary, RunRecord } from '../evidence/run-record.js';
import { describeDollars } from './run-list.js';

/** The candidates side by side and the winner with its reason (terminal end of `run --best-of`, and `show`). */
export function describeBestOf(record: RunRecord, runDir: string | null, exitCode: number | null): string[] {
  const lines: string[] = [];
  lines.push('');
  lines.push(
    `${record.state}${record.reason ? ` (${record.reason})` : ''}${exitCode === null ? '' : ` — exit ${exitCode}`}: best of ${record.candidates?.length ?? 0}`,
  );
  lines.push(...candidateTable(record.candidates ?? [], record.winner?.name ?? null));
  if (record.winner) lines.push(`  winner: ${record.winner.name} — ${record.winner.reason}`);
  else if (record.message) lines.push(`  ${record.message}`);
  if (runDir) lines.push(`  evidence: ${runDir}`);
  lines.push(`  elenchos show ${record.runId}   ·   elenchos report ${record.runId}`);
  if (record.state === 'VERIFIED')
    lines.push(`  take the winner's change: elenchos apply ${record.runId}   (another VERIFIED one: --candidate <name>)`);
  return lines;
}

/** One aligned line per candidate. */
export function candidateTable(candidates: readonly CandidateSummary[], winner: string | null): string[] {
  const width = Math.max(4, ...candidates.map((c) => c.name.length));
  return candidates.map((c) => {
    const change = c.change
      ? `${c.change.size} (+${c.change.added} -${c.change.removed}${c.change.binaryBytes ? ` ${c.change.binaryBytes}B bin` : ''})`
      : '-';
    const time = c.durationMs === null ? '-' : `${(c.durationMs / 1000).toFixed(1)}s`;
    const criteria = c.criteria.map((k) => `${k.id} ${k.status}`).join(', ') || '-';
    const state = `${c.state}${c.reason ? ` ${c.reason}` : ''}`;
    return `  ${c.name === winner ? '★' : ' '} ${c.name.padEnd(width)}  ${state.padEnd(26)} attempts ${c.attempts}  change ${change}  cost ${describeDollars(c.cost?.agentUsd).replace(/^cost /, '')}  ${time}  ${criteria}`;
  });
}
