// The metadata block of `verify --json`: which shard of which commit, planned from which inputs, so that
// `merge` can prove its shards make one complete verification (a "verifying join").
import path from 'node:path';
import { checkRepoRelative } from '../../contract/repo-path.js';
import { lockPathFor } from '../../contract/test-lock-schema.js';
import { git } from '../../git/git.js';
import { ElenchosError } from '../../errors.js';
import { TEST_FILE_LIMIT, readRegularFile } from '../../util/regular-file.js';
import { sha256 } from '../../util/sha256.js';
import { elenchosVersion } from '../../version.js';
import { shardOf, type Shard } from '../select-tasks.js';
import { SHARD_FORMAT_VERSION, compare, type ShardInput, type ShardMetadata } from './shard-metadata-schema.js';

export interface ShardMetadataOptions {
  root: string;
  /** HEAD as `verify` read it once for every task. */
  commit: string | null;
  /** The config file used (absolute), null for the defaults. */
  configPath: string | null;
  /** Every selected task file (absolute, sorted), before the shard is taken. */
  files: readonly string[];
  shard: Shard;
}

/** Describes one `verify` shard; inputs are hashed as they are on disk, which preflight holds to the commit. */
export async function buildShardMetadata(options: ShardMetadataOptions): Promise<ShardMetadata> {
  const { root } = options;
  const tasks = options.files.map((file) => labelOf(root, file));
  const inputs = new Map<string, ShardInput>();
  const add = async (label: string, role: ShardInput['role']) => {
    if (inputs.has(label)) return null;
    const bytes = await readIfFile(path.resolve(root, label));
    if (bytes) inputs.set(label, { path: label, role, sha256: sha256(bytes) });
    return bytes;
  };
  if (options.configPath) await add(labelOf(root, options.configPath), 'config');
  for (const task of tasks) {
    const bytes = await add(task, 'task');
    const testFile = bytes ? testFileOf(bytes, task) : null;
    if (testFile) await add(testFile, 'test');
    await add(lockPathFor(task), 'test-lock');
  }
  const tree = options.commit ? (await git(['rev-parse', `${options.commit}^{tree}`], { cwd: root })).trim() : null;
  return {
    formatVersion: SHARD_FORMAT_VERSION,
    elenchos: elenchosVersion(),
    shard: { index: options.shard.index, total: options.shard.count },
    commit: options.commit,
    tree,
    tasks,
    plan: shardOf(tasks, options.shard),
    inputs: [...inputs.values()].sort((a, b) => compare(a.path, b.path)),
  };
}

/** Repo-relative with forward slashes, as run records name files; absolute outside the repository. */
export function labelOf(root: string, file: string): string {
  const relative = path.relative(root, file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative.split(path.sep).join('/');
}

/** The contract's `verification.testFile`, when it parses and stays inside the repository (else the run refuses it). */
function testFileOf(bytes: Buffer, label: string): string | null {
  try {
    const value = JSON.parse(bytes.toString('utf8').replace(/^\uFEFF/, '')) as { verification?: { testFile?: unknown } };
    const testFile = value?.verification?.testFile;
    return typeof testFile === 'string' && testFile !== '' ? checkRepoRelative(testFile, label) : null;
  } catch {
    return null;
  }
}

/**
 * A file's bytes, or null when it is absent, not a regular file or too large (its task is refused and reported
 * as such). Read like every user input: a FIFO named as a task must not hang the verify on its open.
 */
async function readIfFile(file: string): Promise<Buffer | null> {
  try {
    return await readRegularFile(file, { maxBytes: TEST_FILE_LIMIT });
  } catch (error) {
    if (error instanceof ElenchosError) return null;
    throw error;
  }
}
