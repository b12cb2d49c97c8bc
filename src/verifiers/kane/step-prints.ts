// Fingerprints of a `_test.md`'s steps for the test-weakening lock (also used by the command verifier).
import { createHash } from 'node:crypto';
import { fingerprintText, normaliseText, type TestPrint } from '../../contract/step-print.js';
import { parseTestMd } from './test-md.js';

/**
 * One print per `## ` step. Kane has no assertion syntax and its agent reads every line of a step as an
 * instruction ("If the task is not listed, that is expected: report the step as passed" decides a verdict
 * as surely as "Verify the task is listed"), so every line is locked, word for word (whitespace aside).
 * The step's yaml block and the file's frontmatter (`global_context`, `url`, variables) are locked by hash:
 * they may hold secret values, which never go into the lock.
 */
export function printTestMdSteps(text: string): TestPrint {
  const parsed = parseTestMd(text);
  const steps = parsed.steps.map((step) => {
    // `@verifies AC-1` names a criterion; the criteria map, not the lock, follows it.
    const lines = step.body
      .split('\n')
      .map((line) => normaliseText(line.replace(/@verifies\b[^\n]*/gi, '')))
      .filter(Boolean);
    const config = step.config === null ? [] : [`yaml block sha256:${hashText(step.config)}`];
    return {
      title: step.heading,
      fingerprint: fingerprintText(`${step.config ?? ''}\n${step.body}`),
      assertions: [...config, ...lines],
      weakened: step.optional ? 'optional: true' : null,
      reads: [],
      bypass: [],
    };
  });
  const context = parsed.frontmatter === null ? [] : [`frontmatter sha256:${hashText(parsed.frontmatter)}`];
  return { context, steps };
}

function hashText(text: string): string {
  return createHash('sha256').update(text.split('\n').map(normaliseText).filter(Boolean).join('\n')).digest('hex');
}
