// `elenchos merge`: the `verify --json` outputs of several shards as one result, refused unless they are
// exactly one whole verification (src/core/verify/verifying-join.ts).
import type { KeyObject } from 'node:crypto';
import path from 'node:path';
import { InputError, JsonSyntaxError, ShardSetError } from '../../errors.js';
import { RunRecordSchema } from '../../evidence/run-record.js';
import { EVIDENCE_FILE_LIMIT, parseJsonBytes } from '../../util/json-file.js';
import { readRegularFile } from '../../util/regular-file.js';
import { formatZodIssues } from '../../util/zod-issues.js';
import { SHARD_FORMAT_VERSION, ShardMetadataSchema, compare, type ShardMetadata } from './shard-metadata-schema.js';
import { checkShardSeal } from './shard-seal.js';
import { joinShards, type ReportedTask, type ShardOutput } from './verifying-join.js';
import { overallExit, summarizedCriteria, type VerifiedTask } from './verify-summary.js';

export interface MergeResult {
  tasks: VerifiedTask[];
  exitCode: number;
  /** The joined shards described as one: shard 1/1 of the same commit and inputs, planning every task. */
  metadata: ShardMetadata;
}

/**
 * Reads each shard's output, checks they make one whole verification (else ShardSetError, exit 4), and returns
 * every task once. With `keys` (`--shard-keys`), each output must also be exactly what its job's verify signed
 * (core/verify/shard-seal.ts).
 */
export async function mergeShards(files: readonly string[], cwd: string, keys?: ReadonlyMap<number, KeyObject>): Promise<MergeResult> {
  const outputs: { output: ShardOutput; tasks: VerifiedTask[] }[] = [];
  for (const file of files) {
    const shard = await readShard(file, cwd);
    const { index, total } = shard.output.metadata.shard;
    if (keys) await checkShardSeal(file, cwd, index, total, keys);
    outputs.push(shard);
  }
  const joined = joinShards(outputs.map((o) => o.output));
  if (!joined.ok) throw new ShardSetError(`merge refused: ${joined.problem}`);
  const tasks = outputs.flatMap((o) => o.tasks).sort((a, b) => compare(a.file, b.file));
  const first = outputs.map((o) => o.output.metadata).find((m) => m.shard.index === 1)!;
  const metadata: ShardMetadata = { ...first, shard: { index: 1, total: 1 }, plan: first.tasks, mergedShards: outputs.length };
  return { tasks, exitCode: overallExit(tasks, false), metadata };
}

async function readShard(file: string, cwd: string): Promise<{ output: ShardOutput; tasks: VerifiedTask[] }> {
  const value = await readShardJson(file, cwd);
  const root = value as { runs?: unknown; metadata?: unknown };
  if (!Array.isArray(root.runs)) throw new InputError(`${file}: (root): not the output of elenchos verify --json (no "runs" array)`);
  const metadata = readMetadata(root.metadata, file);
  const tasks: VerifiedTask[] = [];
  const reported: ReportedTask[] = [];
  root.runs.forEach((entry, i) => {
    const refused = entry as { file?: unknown; refused?: unknown };
    if (typeof refused.refused === 'string' && typeof refused.file === 'string') {
      tasks.push({ file: refused.file, record: null, runDir: null, refused: refused.refused, criteria: [] });
      reported.push({ file: refused.file, base: null, contract: [] });
      return;
    }
    const parsed = RunRecordSchema.safeParse(entry);
    if (!parsed.success)
      throw new InputError(`${file}: runs[${i}] is not a run record`, {
        details: formatZodIssues(`${file}: runs[${i}]`, parsed.error.issues),
      });
    const record = parsed.data;
    tasks.push({ file: record.task.file, record, runDir: null, refused: null, criteria: summarizedCriteria(record) });
    reported.push({ file: record.task.file, base: record.workspace.base, contract: record.contract.files });
  });
  return { output: { file, metadata, reported }, tasks };
}

/**
 * The output's JSON. An empty or cut-off file is what a shard leaves when its job is cancelled while verify
 * writes stdout into it: an incomplete shard set (exit 4, naming the file), not bad input (exit 3).
 */
async function readShardJson(file: string, cwd: string): Promise<unknown> {
  const bytes = await readRegularFile(path.resolve(cwd, file), { label: file, maxBytes: EVIDENCE_FILE_LIMIT });
  if (bytes.toString('utf8').trim() === '')
    throw new ShardSetError(
      `merge refused: ${file} is empty: that shard's verify wrote no output (cancelled or failed?); run that shard again`,
    );
  try {
    return parseJsonBytes(bytes, file);
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error;
    throw new ShardSetError(
      `merge refused: ${error.message}: that shard's verify did not finish writing it (cancelled?); run that shard again`,
      { cause: error },
    );
  }
}

/** The metadata block, refused when absent (an older verify) or newer than this Elenchos reads. */
function readMetadata(value: unknown, file: string): ShardMetadata {
  if (value === undefined)
    throw new ShardSetError(
      `merge refused: ${file} has no shard metadata (written by an older elenchos verify); run elenchos verify --shard i/n --json again with this version`,
    );
  const version = (value as { formatVersion?: unknown } | null)?.formatVersion;
  if (typeof version === 'number' && version > SHARD_FORMAT_VERSION)
    throw new ShardSetError(
      `merge refused: ${file} is shard format ${version}, newer than this elenchos reads (${SHARD_FORMAT_VERSION}); merge with the elenchos version that wrote it`,
    );
  const parsed = ShardMetadataSchema.safeParse(value);
  if (!parsed.success)
    throw new InputError(`${file}: metadata is not the shard metadata of elenchos verify --json`, {
      details: formatZodIssues(`${file}: metadata`, parsed.error.issues),
    });
  return parsed.data;
}
