// What ties runs together beyond one task (docs/scale.md): the group of one `run <task…>` command, a share's
// place in a plan split across machines, and a joined run's shares and re-verification. Kept apart from the
// run record's core fields (run-record.ts adds them as optional keys).
import * as z from 'zod';

const shareSchema = z.strictObject({
  index: z.number().int().positive(),
  total: z.number().int().positive(),
});

/** Every run started by one command: `run <task…>` (`tasks`), one share of a split plan (`share`), a `join`. */
export const RunGroupSchema = z.looseObject({
  /** The same id in every run of the command (a run id of its own, never a run's). */
  id: z.string().min(1),
  kind: z.enum(['tasks', 'share', 'join']),
  /** How many tasks the command ran (or joined). */
  tasks: z.number().int().nonnegative(),
  /** A share's place: the i-th of n shares of the plan (`run --shard i/n`). */
  share: shareSchema.optional(),
});

/** A candidate of a joined run: where it came from and what its share said (never taken as the verdict). */
export const JoinedCandidateSchema = z.looseObject({
  share: shareSchema,
  /** The share's run id and host, and the state the share claims for this candidate. */
  runId: z.string(),
  host: z.string(),
  claimed: z.string(),
  /** True when its stored change was replayed and verified on the joining machine. */
  reverified: z.boolean(),
});

/** One share as the join saw it. */
export const JoinedShareSchema = z.looseObject({
  share: shareSchema.nullable(),
  /** The export file as given to `join`. */
  file: z.string(),
  status: z.enum(['accepted', 'rejected']),
  /** Why it was rejected: one line naming the check. */
  problem: z.string().nullable(),
  host: z.string().nullable(),
});

/** A joined run (`elenchos join`): its shares, what was wrong with them, and which candidates were re-verified here. */
export const JoinInfoSchema = z.looseObject({
  shares: z.array(JoinedShareSchema),
  /** Everything the join names: missing, duplicated, tampered, misplaced or foreign shares (never a winner). */
  problems: z.array(z.string()),
  /** Candidates re-verified here, in the order they were tried (the best-of rule's order). */
  tried: z.array(z.string()),
});

/** A run whose "agent" replayed a stored change instead of working (the re-verification of a join). */
export const ReplayInfoSchema = z.looseObject({
  /** The share's run and candidate the change came from. */
  runId: z.string(),
  candidate: z.string().nullable(),
  attempt: z.number().int().positive(),
  host: z.string(),
});

export type RunGroup = z.infer<typeof RunGroupSchema>;
export type JoinInfo = z.infer<typeof JoinInfoSchema>;
export type ReplayInfo = z.infer<typeof ReplayInfoSchema>;
