// Next.js 16 in dev mode (`next dev`, Turbopack) through the whole loop, on the create-next-app template
// (app-empty, TypeScript). At its start and first compile `next dev` writes `.next/` (all of it),
// `next-env.d.ts`, and creates or updates `AGENTS.md` with its managed blocks: all in the tracked tree
// of a repository that ignores only node_modules.
//
// SKIPPED: Next.js 16.5 still ends its first run in a false alarm, so this test cannot pass yet (#23):
// - `next dev` creates an empty `cache/` folder at the project root at its start: `UNSTABLE_WORKSPACE:
//   the workspace was written while the verifier looked: cache` (seen with `verify`);
// - `next dev` creates `AGENTS.md` (or rewrites its managed blocks in it) at every start where they are
//   not current (next/dist/server/lib/generate-agent-files.js), a write no built-in covers;
// - in one `run` (the agent had changed app/page.tsx) the window ended `CONTRACT_CHANGED: the contract
//   changed before verification: tsconfig.json changed in the worktree`: Next's
//   writeConfigurationDefaults rewrites tsconfig.json, which the Playwright verifier's contract lock
//   covers, so a dev server's write is taken for tampering (NEEDS_HUMAN). Not reproduced on `verify`.
// Un-skip once these are fixed in src; the test is the proof.
import { describe, it } from 'vitest';
import { expectVerifiedLoop, makeStack } from './stack.js';

const SPEC = `import { expect, test } from '@playwright/test';

test('shows the tasks @AC-001', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Tasks' })).toBeVisible();
  await expect(page.getByRole('listitem')).toHaveText(['Buy milk', 'Walk the dog']);
});

test('counts the tasks @AC-002', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByText('2 tasks left')).toBeVisible();
});
`;

const pageTsx = (count: string) => `const tasks = ['Buy milk', 'Walk the dog'];

export default function Home() {
  return (
    <main>
      <h1>Tasks</h1>
      <ul>
        {tasks.map((task) => (
          <li key={task}>{task}</li>
        ))}
      </ul>
      <p>{${count}} tasks left</p>
    </main>
  );
}
`;

describe.skip('Next.js 16 dev server', () => {
  it('run → FAIL → repair → VERIFIED, then verify: VERIFIED, nothing ignored, nothing flagged', async () => {
    const stack = makeStack({
      app: 'next',
      appConfig: { command: 'npm run dev -- -p {port}', env: { NEXT_TELEMETRY_DISABLED: '1' } },
      spec: SPEC,
      criteria: ['the page lists the tasks', 'the page counts the tasks left'],
      // Attempt 1 counts one too many; the repair counts them.
      edits: { first: { 'app/page.tsx': pageTsx('tasks.length + 1') }, repair: { 'app/page.tsx': pageTsx('tasks.length') } },
      // A page compiles on its first visit: seconds on an idle machine, more on two busy cores.
      testTimeoutMs: 120_000,
    });
    await expectVerifiedLoop(stack);
  });
});
