// The metadata block of `verify --json`: which shard of which commit, planned from which inputs, so that
// `merge` can prove its shards make one complete verification (a "verifying join").
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { checkRepoRelative } from '../contract/repo-path.js';
import { lockPathFor } from '../contract/test-lock-schema.js';
import { git } from '../git/git.js';
import { sha256 } from '../util/sha256.js';
import { elenchosVersion } from '../version.js';
import { shardOf, type Shard } from './select-tasks.js';

/** Bumped when a field changes meaning; `merge` refuses a newer format rather than misread it. */
export const SHARD_FORMAT_VERSION = 1;

export const INPUT_ROLES = ['config', 'task', 'test', 'test-lock'] as const;

const hex = (what: string) => z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/, `must be a full ${what} id`);

export const ShardInputSchema = z.strictObject({
  path: z.string().min(1),
  role: z.enum(INPUT_ROLES),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be a lowercase hex SHA-256'),
});

export const ShardMetadataSchema = z.looseObject({
  formatVersion: z.literal(SHARD_FORMAT_VERSION),
  /** The Elenchos that wrote it (informative: not compared between shards). */
  elenchos: z.string(),
  shard: z
    .strictObject({ index: z.number().int().positive(), total: z.number().int().positive() })
    .refine((s) => s.index <= s.total, { message: 'index must be at most total' }),
  /** HEAD when verify started (every task of the shard verified it); null outside a repository. */
  commit: hex('commit').nullable(),
  tree: hex('tree').nullable(),
  /** Every task file of the whole verification, sorted: what all shards were split from. */
  tasks: z.array(z.string().min(1)),
  /** The tasks this shard was meant to run, sorted. */
  plan: z.array(z.string().min(1)),
  /** sha256 of the config and of every task contract, test file and test lock of `tasks`, sorted by path. */
  inputs: z.array(ShardInputSchema),
  /** Set by `merge --json`: how many shard outputs this one joins (it is then shard 1/1). */
  mergedShards: z.number().int().positive().optional(),
});

export type ShardInput = z.infer<typeof ShardInputSchema>;
export type ShardMetadata = z.infer<typeof ShardMetadataSchema>;

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

/** A file's bytes, or null when it is absent or not a file (its task is refused and reported as such). */
async function readIfFile(file: string): Promise<Buffer | null> {
  try {
    return await readFile(file);
  } catch (error) {
    if (['ENOENT', 'ENOTDIR', 'EISDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) return null;
    throw error;
  }
}

/** Code-unit order, the same on every machine and locale. */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
