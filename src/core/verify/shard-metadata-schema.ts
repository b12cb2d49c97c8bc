// The format of the metadata block of `verify --json` (zod only: `merge` reads it without loading the
// task selection or git).
import * as z from 'zod';
import { MAX_SHARDS } from '../shard-limit.js';

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
    // Bounded before it is used: `merge` lists the shards 1..total it misses.
    .strictObject({ index: z.number().int().positive(), total: z.number().int().positive().max(MAX_SHARDS) })
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
  mergedShards: z.number().int().positive().max(MAX_SHARDS).optional(),
});

export type ShardInput = z.infer<typeof ShardInputSchema>;
export type ShardMetadata = z.infer<typeof ShardMetadataSchema>;

/** Code-unit order, the same on every machine and locale. */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
