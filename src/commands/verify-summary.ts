// The closing output `verify` and `merge` share: the summary table and the report files. Its own file, so
// that `merge` loads none of the run graph that `verify-all.ts` imports.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { writeHuman, type CliIO } from '../cli-io.js';
import type { VerifiedTask } from '../core/verify/verify-summary.js';
import { InputError } from '../errors.js';

/** Writes a report file, creating its folder; a path that cannot be written is the user's to fix (exit 3). */
export async function writeReportFile(file: string, text: string): Promise<void> {
  try {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, text);
  } catch (error) {
    throw new InputError(
      `--junit ${file}: cannot write it (${(error as NodeJS.ErrnoException).code ?? String(error)}); choose a writable path`,
      { cause: error },
    );
  }
}

/** The closing table: one line per task with its verdict and criteria, under the command's own title. */
export function printSummary(io: CliIO, tasks: readonly VerifiedTask[], options: { title: string; shard: string | null }): void {
  const { title, shard } = options;
  writeHuman(io.stdout, `${title}: ${tasks.length} task(s)${shard ? ` (shard ${shard})` : ''}`);
  for (const t of tasks) {
    if (!t.record) {
      const [first, ...details] = (t.refused ?? '').split('\n');
      writeHuman(io.stdout, `  REFUSED   ${t.file}: ${first}`);
      // The details name what to fix (which criterion, which step, which commit): show them, within reason.
      for (const line of details.slice(0, 10)) writeHuman(io.stdout, `            ${line}`);
      if (details.length > 10) writeHuman(io.stdout, `            … and ${details.length - 10} more (--json has them all)`);
      continue;
    }
    const state = `${t.record.state}${t.record.reason ? ` ${t.record.reason}` : ''}`;
    const criteria = t.criteria.map((c) => `${c.id} ${c.status}`).join(', ');
    writeHuman(io.stdout, `  ${state.padEnd(28)} ${t.record.task.id.padEnd(20)} ${criteria}  (run ${t.record.runId})`);
    for (const reason of t.needsHuman?.reasons ?? []) writeHuman(io.stdout, `            NEEDS_HUMAN: ${reason}`);
  }
  const verified = tasks.filter((t) => t.record?.state === 'VERIFIED').length;
  writeHuman(io.stdout, `${verified}/${tasks.length} VERIFIED`);
}
