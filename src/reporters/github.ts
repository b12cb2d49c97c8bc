// GitHub Actions: an error annotation per task that is not VERIFIED, and a job-summary table.
import { appendFile } from 'node:fs/promises';
import type { VerifiedTask } from '../core/verify/verify-summary.js';

/** Workflow commands for stdout (`::error file=…,title=…::message`), one per task not VERIFIED. */
export function githubAnnotations(tasks: readonly VerifiedTask[]): string[] {
  const escape = (s: string) => s.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');
  const prop = (s: string) => escape(s).replaceAll(':', '%3A').replaceAll(',', '%2C');
  return tasks
    .filter((t) => t.record?.state !== 'VERIFIED')
    .map((t) => {
      const title = t.record
        ? `Elenchos: ${t.record.task.id} ${t.record.state}${t.record.reason ? ` (${t.record.reason})` : ''}`
        : `Elenchos: ${t.file} refused`;
      const failed = t.criteria.filter((c) => c.status !== 'PASS').map((c) => `${c.status} ${c.id}: ${c.description}`);
      const message = [t.record?.message ?? t.refused ?? '', ...failed].filter(Boolean).join('\n');
      return `::error file=${prop(t.file)},title=${prop(title)}::${escape(message)}`;
    });
}

/** Appends a Markdown table of the results to the job summary file. */
export async function writeJobSummary(file: string, tasks: readonly VerifiedTask[]): Promise<void> {
  const cell = (s: string) => s.replaceAll('|', '\\|').replaceAll('\n', ' ');
  const rows = tasks.map((t) => {
    const criteria = t.criteria.map((c) => `${c.status === 'PASS' ? '✅' : c.status === 'FAIL' ? '❌' : '⚠️'} ${c.id}`).join(' ');
    const state = t.record ? `${t.record.state}${t.record.reason ? ` (${t.record.reason})` : ''}` : 'REFUSED';
    return `| ${cell(t.record?.task.id ?? t.file)} | ${cell(state)} | ${cell(criteria)} | ${cell(t.record?.runId ?? t.refused ?? '')} |`;
  });
  await appendFile(file, ['## Elenchos verify', '', '| task | state | criteria | run |', '|---|---|---|---|', ...rows, ''].join('\n'));
}
