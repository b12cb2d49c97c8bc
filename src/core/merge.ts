// `elenchos merge`: the `verify --json` outputs of several shards as one result.
import path from 'node:path';
import { InputError } from '../errors.js';
import { RunRecordSchema } from '../evidence/run-record.js';
import { EVIDENCE_FILE_LIMIT, readJsonFile } from '../util/json-file.js';
import { formatZodIssues } from '../util/zod-issues.js';
import { overallExit, summarizedCriteria, type VerifiedTask } from './verify-summary.js';

/** Reads each shard's `{ "runs": [...] }` and returns every task once, in file order, with the overall exit code. */
export async function mergeShards(files: readonly string[], cwd: string): Promise<{ tasks: VerifiedTask[]; exitCode: number }> {
  const byFile = new Map<string, VerifiedTask>();
  for (const file of files) {
    const { value } = await readJsonFile(path.resolve(cwd, file), file, { maxBytes: EVIDENCE_FILE_LIMIT });
    const runs = (value as { runs?: unknown }).runs;
    if (!Array.isArray(runs)) throw new InputError(`${file}: (root): not the output of elenchos verify --json (no "runs" array)`);
    runs.forEach((entry, i) => {
      const refused = entry as { file?: unknown; refused?: unknown };
      if (typeof refused.refused === 'string' && typeof refused.file === 'string') {
        byFile.set(refused.file, { file: refused.file, record: null, runDir: null, refused: refused.refused, criteria: [] });
        return;
      }
      const parsed = RunRecordSchema.safeParse(entry);
      if (!parsed.success)
        throw new InputError(`${file}: runs[${i}] is not a run record`, {
          details: formatZodIssues(`${file}: runs[${i}]`, parsed.error.issues),
        });
      const record = parsed.data;
      const criteria = summarizedCriteria(record);
      // A task verified by two shards (overlapping task lists) keeps its newest run.
      const previous = byFile.get(record.task.file)?.record;
      if (!previous || previous.runId < record.runId)
        byFile.set(record.task.file, { file: record.task.file, record, runDir: null, refused: null, criteria });
    });
  }
  const tasks = [...byFile.values()].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  return { tasks, exitCode: overallExit(tasks, false) };
}
