// The task contract: the one zod schema that schemas/task.schema.json is generated from.
import * as z from 'zod';

export const TASK_ID_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;
export const CRITERION_ID_PATTERN = /^[A-Za-z][A-Za-z0-9]*-\d+$/;

/** Error text that tells a missing key from a wrong type. */
export const required =
  (what: string, expected: string) =>
  (issue: { input?: unknown }): string =>
    issue.input === undefined ? `${what} is required` : `${what} must be ${expected}`;

const nonEmpty = (what: string) =>
  z
    .string({ error: required(what, 'a string') })
    .trim()
    .min(1, `${what} must not be empty`);

/** A verifier variable: a plain string, or Kane's `{ value, secret }` object. */
export const VariableSchema = z.union([z.string(), z.strictObject({ value: z.string(), secret: z.boolean().optional() })]);
export type Variable = z.infer<typeof VariableSchema>;

export const VERIFIER_TYPES = ['kane', 'playwright', 'command'] as const;
export type VerifierType = (typeof VERIFIER_TYPES)[number];

export const CriterionSchema = z.strictObject(
  {
    id: z
      .string({ error: required('criterion id', 'a string') })
      .regex(CRITERION_ID_PATTERN, 'criterion id must look like PREFIX-N (for example AC-001)'),
    description: nonEmpty('criterion description'),
  },
  { error: required('criterion', 'an object { "id": "AC-001", "description": "..." }') },
);
export type Criterion = z.infer<typeof CriterionSchema>;

export const TaskVerificationSchema = z.strictObject(
  {
    testFile: nonEmpty('verification.testFile')
      .refine((p) => !/^([/\\]|[A-Za-z]:[\\/])/.test(p), 'must be relative to the repository root, not absolute')
      .refine((p) => !p.replaceAll('\\', '/').split('/').includes('..'), 'must not contain ".." (it must stay inside the repository)')
      .refine((p) => !p.includes('\0'), 'must not contain a NUL byte (\\u0000)')
      .describe('Path of the verifier test, relative to the repository root (a Kane `_test.md`, or a Playwright spec).'),
    variables: z.record(z.string(), VariableSchema).optional().describe('Variables passed to the verifier.'),
    timeoutSeconds: z.number().int().positive().max(86_400).optional().describe("Overrides the config's verifier timeout."),
    verifier: z.enum(VERIFIER_TYPES).optional().describe("Overrides the config's verifier type for this task."),
  },
  { error: required('verification', 'an object like { "testFile": "tests/x_test.md" }') },
);

export const TaskSchema = z
  .strictObject({
    $schema: z.string().optional(),
    id: z
      .string({ error: required('id', 'a string') })
      .regex(TASK_ID_PATTERN, 'id must be a lowercase slug: letters, digits, ".", "_" or "-", at most 64 characters'),
    title: nonEmpty('title'),
    description: nonEmpty('description'),
    acceptanceCriteria: z
      .array(CriterionSchema, { error: required('acceptanceCriteria', 'an array of { id, description }') })
      .min(1, 'acceptanceCriteria needs at least one criterion'),
    verification: TaskVerificationSchema,
  })
  .superRefine(
    (task, ctx) => {
      // Runs even when other keys are invalid (see `when`), so it must not trust the shape.
      const seen = new Map<string, number>();
      const list: unknown[] = Array.isArray(task.acceptanceCriteria) ? task.acceptanceCriteria : [];
      list.forEach((criterion, index) => {
        const id = (criterion as { id?: unknown } | null)?.id;
        if (typeof id !== 'string') return;
        const key = id.toUpperCase();
        const first = seen.get(key);
        if (first === undefined) {
          seen.set(key, index);
          return;
        }
        ctx.addIssue({
          code: 'custom',
          path: ['acceptanceCriteria', index, 'id'],
          message: `duplicate criterion id "${id}" (same as acceptanceCriteria[${first}].id; ids are case-insensitive); give it a unique id`,
        });
      });
    },
    { when: (payload) => typeof payload.value === 'object' && payload.value !== null },
  );

export type Task = z.infer<typeof TaskSchema>;
