// `elenchos-share.json`, the first file of an export (`run --shard i/n --export <file>`): which commit, which
// inputs, the whole plan and this share's place in it, and each run folder with the digest of its manifest.
// `join` reads it with zod alone, and believes none of it without checking (core/join/).
import { createHmac } from 'node:crypto';
import * as z from 'zod';
import { RUN_ID_PATTERN } from '../../evidence/run-id.js';
import { sameHex } from '../../evidence/manifest.js';
import { canonicalJson } from '../lock/contract-lock.js';
import { ShardInputSchema } from '../verify/shard-metadata-schema.js';

export const SHARE_FILE = 'elenchos-share.json';
/** The folder of the export holding the run folders (`runs/<run-id>/…`). */
export const SHARE_RUNS_DIR = 'runs';
/** Bumped when a field changes meaning; `join` refuses a newer format rather than misread it. */
export const SHARE_FORMAT_VERSION = 1;

const hex = (what: string) => z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/, `must be a full ${what} id`);
const label = z.string().min(1).max(4096);

export const PlanEntrySchema = z.strictObject({ task: label, candidate: z.string().min(1).max(64).nullable() });

export const ShareRunSchema = z.strictObject({
  task: label,
  runId: z.string().regex(RUN_ID_PATTERN, 'must be a run id'),
  /** The candidates the run holds (a best-of run), null for a plain run. */
  candidates: z.array(z.string().min(1).max(64)).max(64).nullable(),
  /** sha256 of the run folder's manifest.json as exported. */
  manifestSha256: z.string().regex(/^[0-9a-f]{64}$/),
});

export const ShareManifestSchema = z.strictObject({
  format: z.literal('elenchos-share'),
  formatVersion: z.literal(SHARE_FORMAT_VERSION),
  /** The Elenchos that wrote it, and where (informative). */
  elenchos: z.string().max(200),
  host: z.string().max(300),
  /** The group id of the `run` that made this share. */
  group: z.string().max(100),
  share: z
    .strictObject({ index: z.number().int().positive(), total: z.number().int().positive().max(10_000) })
    .refine((s) => s.index <= s.total, { message: 'index must be at most total' }),
  commit: hex('commit'),
  tree: hex('tree'),
  /** Every task of the plan, sorted; the best-of options and the candidate names every share's plan is made of. */
  tasks: z.array(label).min(1).max(10_000),
  bestOf: z.strictObject({
    agents: z.array(z.string().max(64)).max(64).nullable(),
    bestOf: z.number().int().positive().max(64).nullable(),
  }),
  candidates: z.array(z.string().min(1).max(64)).max(64).nullable(),
  /** The whole plan, and the entries this share says were its own. */
  plan: z.array(PlanEntrySchema).max(100_000),
  assigned: z.array(PlanEntrySchema).max(100_000),
  /** sha256 of the config and each task, test and test lock, as shard metadata has them. */
  inputs: z.array(ShardInputSchema).max(50_000),
  runs: z.array(ShareRunSchema).max(10_000),
  /** HMAC-SHA256 (ELENCHOS_SIGNING_KEY) of everything above, canonical JSON; absent when no key was set. */
  hmac: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
});

export type ShareManifest = z.infer<typeof ShareManifestSchema>;
export type ShareRun = z.infer<typeof ShareRunSchema>;

/** The HMAC of a share manifest (its `hmac` left out). */
export function signShare(manifest: Omit<ShareManifest, 'hmac'> & { hmac?: string }, key: string): string {
  const { hmac: _hmac, ...rest } = manifest;
  return createHmac('sha256', key).update(canonicalJson(rest)).digest('hex');
}

/** Whether the manifest's HMAC is the one `key` makes. */
export function shareSignatureHolds(manifest: ShareManifest, key: string): boolean {
  return manifest.hmac !== undefined && sameHex(manifest.hmac, signShare(manifest, key));
}
