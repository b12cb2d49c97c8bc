// What stood behind a verdict (docs/verification.md#what-stood-behind-a-verdict): each guard an attempt ran
// and how, in attempt.json `guards`, and the run's summary in run.json `guards`. Written by Elenchos from what
// it observed; no child writes it, and the manifest and the attestation seal it.
import * as z from 'zod';
import { GUARD_NAMES, PROCESS_TABLE_BLIND_SPOTS, PROCESS_TABLE_SOURCES, SANDBOX_MODES } from '../states.js';

const count = z.number().int().nonnegative();

/** What every guard says: whether it stood (ran and could look), how it looked, and why not (or why so). */
const guardFields = {
  stood: z.boolean(),
  how: z.string(),
  why: z.string().nullable(),
};

/** How one kind of child ran: in bubblewrap or not, and why (the config, or a sandbox that would not hold). */
const SandboxRoleSchema = z.looseObject({ mode: z.enum(SANDBOX_MODES), why: z.string() });

/** One look for escaped processes: when, in which table, and what that table could not see. */
const ProcessScanSchema = z.looseObject({
  after: z.enum(['start', 'agent', 'verification']),
  source: z.enum(PROCESS_TABLE_SOURCES),
  blind: z.array(z.enum(PROCESS_TABLE_BLIND_SPOTS)),
  why: z.string(),
});

export const AttemptGuardsSchema = z.looseObject({
  /** Stood when every child that ran (the agent, the app, setup.command) ran in the sandbox. */
  sandbox: z
    .looseObject({
      ...guardFields,
      agent: SandboxRoleSchema.nullable(),
      app: SandboxRoleSchema.nullable(),
      setup: SandboxRoleSchema.nullable(),
    })
    .optional(),
  /** Stood when every look saw the whole table, environments and held directories included. */
  processScan: z.looseObject({ ...guardFields, scans: z.array(ProcessScanSchema) }).optional(),
  /** Stood when the watch over the verifier window proved it saw (a marker of ours came back). */
  windowWatch: z.looseObject({ ...guardFields, directories: count }).optional(),
  /** Stood when what reached git's object store was checked: the agent's quarantine settled, or the store audited. */
  objectStore: z.looseObject({ ...guardFields }).optional(),
  /** Stood when every locked input (the task, the test and what it loads, the test lock) hashed as locked. */
  inputsPinned: z.looseObject({ ...guardFields, files: count, roles: z.array(z.string()) }).optional(),
});

export const RunGuardsSchema = z.looseObject({
  /** The attempt the guards below come from (the last one), null when the run ended before any. */
  attempt: z.number().int().positive().nullable(),
  /** Guards that stood behind this verdict, by name. */
  stood: z.array(z.enum(GUARD_NAMES)),
  /** Guards that did not: off, unable to look, or never reached. */
  missing: z.array(z.enum(GUARD_NAMES)),
  /** Guards this run could not be VERIFIED without: those that always run (less `allowed`), and guards.require / --require. */
  required: z.array(z.enum(GUARD_NAMES)),
  /** guards.allow: guards that may fail to look without stopping a VERIFIED. */
  allowed: z.array(z.enum(GUARD_NAMES)),
  detail: AttemptGuardsSchema,
});

export type AttemptGuards = z.infer<typeof AttemptGuardsSchema>;
export type RunGuards = z.infer<typeof RunGuardsSchema>;
export type ProcessScan = z.infer<typeof ProcessScanSchema>;
export type SandboxRole = z.infer<typeof SandboxRoleSchema>;
