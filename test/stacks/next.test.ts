// Next.js 16 in dev mode (`next dev`, Turbopack) through the whole loop, on the create-next-app template
// (app-empty, TypeScript). At its start and first compile `next dev` writes `.next/` (all of it),
// `next-env.d.ts`, and creates or updates `AGENTS.md` with its managed blocks: all in the tracked tree
// of a repository that ignores only node_modules.
//
// Telemetry is off (NEXT_TELEMETRY_DISABLED=1 in the app's env): no test may call out, and `next dev`
// would post its events otherwise.
//
// What made its first run a false alarm, and how each is handled:
// - in CI or a container, Next's telemetry creates `cache/` at the project root, telemetry off or not
//   (next 16.5.0 dist/telemetry/storage.js: its preferences store in `<cwd>/cache/`, whose folder `conf`
//   creates as it first reads; `cache/config.json` only once a preference is set): a built-in app write
//   (src/config/app-writes.ts);
// - `next dev` creates `AGENTS.md`, or rewrites its managed blocks, when they are not current
//   (next/dist/server/lib/generate-agent-files.js): create-next-app commits it current, and so does this
//   fixture (as `next dev` 16.5.0 wrote it); a project without it commits it once, or declares it.
import { describe, it } from 'vitest';
import { expectVerifiedLoop, hasChromium, makeStack } from './stack.js';

const SPEC = `import { expect, test } from '@playwright/test';

test('shows the tasks @AC-001', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Tasks' })).toBeVisible();
  await expect(page.getByRole('listitem')).toHaveText(['Buy milk', 'Walk the dog']);
});

test('counts the tasks, also after adding one @AC-002', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByText('2 tasks left')).toBeVisible();
  // Enabled once React hydrated: a page whose JavaScript never ran (next dev blocking it) never gets here.
  await page.getByRole('button', { name: 'Add a task' }).click();
  await expect(page.getByRole('listitem')).toHaveText(['Buy milk', 'Walk the dog', 'Feed the cat']);
  await expect(page.getByText('3 tasks left')).toBeVisible();
});
`;

// A client component: its button works only once the page's JavaScript (served by next dev from /_next/)
// has run, which is what a browser at a host next dev does not trust never gets (docs/config.md).
const pageTsx = (count: string) => `'use client';

import { useEffect, useState } from 'react';

export default function Home() {
  const [tasks, setTasks] = useState(['Buy milk', 'Walk the dog']);
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return (
    <main>
      <h1>Tasks</h1>
      <ul>
        {tasks.map((task) => (
          <li key={task}>{task}</li>
        ))}
      </ul>
      <button type="button" disabled={!hydrated} onClick={() => setTasks([...tasks, 'Feed the cat'])}>
        Add a task
      </button>
      <p>{${count}} tasks left</p>
    </main>
  );
}
`;

describe.runIf(hasChromium)('Next.js 16 dev server', () => {
  it('run → FAIL → repair → VERIFIED, then verify: VERIFIED, nothing ignored, nothing flagged', async () => {
    const stack = makeStack({
      app: 'next',
      // Telemetry off, so nothing calls out (in CI it still creates cache/ at the root, see above). On
      // localhost, as `elenchos init` writes it for Next.js: at 127.0.0.1, next dev 16 blocks its own /_next/
      // resources, the page never hydrates and the button's click does nothing (docs/config.md).
      appConfig: { command: 'npm run dev -- -p {port}', url: 'http://localhost:{port}/', env: { NEXT_TELEMETRY_DISABLED: '1' } },
      spec: SPEC,
      criteria: ['the page lists the tasks', 'the page counts the tasks left, also after adding one'],
      // Attempt 1 counts one too many; the repair counts them.
      edits: { first: { 'app/page.tsx': pageTsx('tasks.length + 1') }, repair: { 'app/page.tsx': pageTsx('tasks.length') } },
      // A page compiles on its first visit: seconds on an idle machine, more on two busy cores.
      testTimeoutMs: 120_000,
    });
    await expectVerifiedLoop(stack);
  });
});
