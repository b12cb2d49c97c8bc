// Several tasks of one command for people (`run <task…>`, `join`): one line per task as it ends, one table at the end.
import type { RunRecord } from '../evidence/run-record.js';

/** What a table row needs of one task: its record, or why it has none. */
export interface TaskRow {
  task: string;
  record: RunRecord | null;
  notRun: string | null;
}

/** The line printed as one task ends. */
export function describeTaskEnd(row: TaskRow): string {
  if (!row.record) return `${row.task}: no run (${row.notRun ?? 'not started'})`;
  const r = row.record;
  const winner = r.winner ? `, winner ${r.winner.name}` : '';
  return `${row.task}: ${r.state}${r.reason ? ` (${r.reason})` : ''}${winner} — run ${r.runId}`;
}

/** The table at the end: task, state, reason, run id, and the winner of a best-of task. */
export function taskTable(rows: readonly TaskRow[], heading: { state: string; exitCode: number; group: string }): string[] {
  const width = Math.max(4, ...rows.map((r) => r.task.length));
  const lines = ['', `${heading.state} — exit ${heading.exitCode}: ${rows.length} task(s), group ${heading.group}`];
  for (const row of rows) {
    const r = row.record;
    const state = r ? `${r.state}${r.reason ? ` ${r.reason}` : ''}` : 'NO RUN';
    const detail = r ? `run ${r.runId}${r.winner ? `  winner ${r.winner.name}` : ''}` : (row.notRun ?? '');
    lines.push(`  ${row.task.padEnd(width)}  ${state.padEnd(26)} ${detail}`);
  }
  lines.push('  elenchos show <run-id>   ·   elenchos apply <run-id> (a VERIFIED one)');
  return lines;
}
