// A Playwright spec skeleton for a contract: one tagged test per criterion, each failing until written.
import type { Task } from '../../contract/task-schema.js';

const quote = (text: string) => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'").replaceAll('\n', ' ')}'`;

/**
 * The skeleton's tests throw a plain Error (not an `expect` failure): Elenchos reads that as "the test
 * could not judge", never as a product failure, so an unwritten test can neither pass a criterion nor
 * send an agent to "repair" the product.
 */
export function specSkeleton(task: Task): string {
  const tests = task.acceptanceCriteria.map(
    (c) => `test(${quote(c.description)}, { tag: '@${c.id}' }, async ({ page }) => {
  await page.goto('/');
  // Replace the next line with the steps that prove ${c.id} and the assertions that check it.
  throw new Error(${quote(`not written yet: ${c.id} (${task.id}); write the steps and assertions that prove it`)});
});
`,
  );
  return `// Written by \`elenchos author\` from ${task.id}: one test per acceptance criterion, tagged with its id.
// Each fails until it is written. Read it, write it, run \`elenchos check\`, then commit it.
import { test, expect } from '@playwright/test';

${tests.join('\n')}`;
}
