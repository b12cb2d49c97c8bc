// The in-toto Statement v1 an attestation holds, with the test-result predicate
// (github.com/in-toto/attestation, spec/predicates/test-result.md).
import * as z from 'zod';
import { GUARD_NAMES, type GuardName } from '../states.js';

export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
export const TEST_RESULT_PREDICATE = 'https://in-toto.io/attestation/test-result/v0.1';
/** The subject naming the commit verified; found by its `gitCommit` digest, not by this name. */
export const COMMIT_SUBJECT_NAME = 'git+commit';
/** The subject naming the `--json` verdict document (the bytes the command printed). */
export const VERDICT_SUBJECT_NAME = 'elenchos-verdict.json';

/** What a configuration file was to the verdict (the run record's contract roles, plus the config). */
export const CONFIGURATION_ROLES = ['config', 'task', 'test', 'import', 'variables', 'spec', 'test-lock'] as const;
export type ConfigurationRole = (typeof CONFIGURATION_ROLES)[number];

/**
 * Elenchos's addition to the test-result predicate (readers of the standard ignore fields they do not know):
 * the guards that stood behind every task's verdict, and per task what stood and what did not
 * (docs/verification.md#what-stood-behind-a-verdict). Absent in attestations made before it existed.
 */
const GuardsPredicateSchema = z.looseObject({
  stood: z.array(z.enum(GUARD_NAMES)),
  missing: z.array(z.enum(GUARD_NAMES)),
  tasks: z.record(z.string(), z.looseObject({ stood: z.array(z.enum(GUARD_NAMES)), missing: z.array(z.enum(GUARD_NAMES)) })),
});
export type GuardsPredicate = z.infer<typeof GuardsPredicateSchema>;

const ResourceDescriptorSchema = z.looseObject({
  name: z.string().optional(),
  uri: z.string().optional(),
  digest: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.unknown()).optional(),
});

export const StatementSchema = z.looseObject({
  _type: z.literal(STATEMENT_TYPE),
  subject: z.array(ResourceDescriptorSchema),
  predicateType: z.literal(TEST_RESULT_PREDICATE),
  predicate: z.looseObject({
    result: z.enum(['PASSED', 'WARNED', 'FAILED']),
    configuration: z.array(ResourceDescriptorSchema).default([]),
    url: z.string().optional(),
    passedTests: z.array(z.string()).default([]),
    warnedTests: z.array(z.string()).default([]),
    failedTests: z.array(z.string()).default([]),
    guards: GuardsPredicateSchema.optional(),
  }),
});
export type Statement = z.infer<typeof StatementSchema>;
export type ResourceDescriptor = z.infer<typeof ResourceDescriptorSchema>;

/** One file the verdict depended on, as the commit holds it. */
export interface ConfigurationFile {
  path: string;
  sha256: string;
  role: ConfigurationRole;
}

export interface StatementInput {
  commit: string;
  /** sha256 of the `--json` document, when the command printed one. */
  verdictSha256: string | null;
  result: 'PASSED' | 'FAILED';
  configuration: readonly ConfigurationFile[];
  passedTests: readonly string[];
  failedTests: readonly string[];
  url: string | null;
  /** The guards behind the verdict, per task (task file → what stood). */
  guards: Readonly<Record<string, { stood: readonly GuardName[]; missing: readonly GuardName[] }>>;
}

/** The statement for one verdict: pure, its arrays sorted so the same verdict gives the same bytes. */
export function buildStatement(input: StatementInput): Statement {
  const subject: ResourceDescriptor[] = [{ name: COMMIT_SUBJECT_NAME, digest: { gitCommit: input.commit } }];
  if (input.verdictSha256) subject.push({ name: VERDICT_SUBJECT_NAME, digest: { sha256: input.verdictSha256 } });
  const byPath = (a: ConfigurationFile, b: ConfigurationFile) => compare(a.path, b.path) || compare(a.role, b.role);
  return {
    _type: STATEMENT_TYPE,
    subject,
    predicateType: TEST_RESULT_PREDICATE,
    predicate: {
      result: input.result,
      configuration: [...input.configuration].sort(byPath).map((file) => ({
        name: file.path,
        digest: { sha256: file.sha256 },
        annotations: { role: file.role },
      })),
      ...(input.url ? { url: input.url } : {}),
      passedTests: [...input.passedTests].sort(compare),
      warnedTests: [],
      failedTests: [...input.failedTests].sort(compare),
      guards: guardsPredicate(input.guards),
    },
  };
}

/** What stood behind every task (the guards all of them stood on), what did not behind some, and each task's own. */
function guardsPredicate(tasks: StatementInput['guards']): GuardsPredicate {
  const files = Object.keys(tasks).sort(compare);
  const inOrder = (names: Iterable<GuardName>) => GUARD_NAMES.filter((g) => new Set(names).has(g));
  const everywhere = GUARD_NAMES.filter((g) => files.length > 0 && files.every((f) => tasks[f]!.stood.includes(g)));
  return {
    stood: everywhere,
    missing: GUARD_NAMES.filter((g) => !everywhere.includes(g)),
    tasks: Object.fromEntries(files.map((f) => [f, { stood: inOrder(tasks[f]!.stood), missing: inOrder(tasks[f]!.missing) }])),
  };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
