// An app that keeps its data in the repository: every request is counted in the tracked data/db.json.
// Declared in app.writes, the loop is VERIFIED; undeclared, the run ends UNSTABLE_WORKSPACE with the fix
// in its message, which is the user's to make, not tampering: nothing is flagged NEEDS_HUMAN.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { processesInside } from '../helpers/project.js';
import { gitSync } from '../helpers/temp.js';
import { TASK_FILE, elenchos, expectVerifiedLoop, hasChromium, makeStack, storedRuns } from './stack.js';

const SPEC = `import { expect, test } from '@playwright/test';

test('shows the guestbook @AC-001', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Guestbook' })).toBeVisible();
});

test('counts the visits @AC-002', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByText(/^Visits: \\d+$/)).toBeVisible();
});
`;

const page = (counter: string) => `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Guestbook</title>
  </head>
  <body>
    <h1>Guestbook</h1>
    <p id="visits"></p>
    <script>
      fetch('/api/stats')
        .then((res) => res.json())
        .then((stats) => (document.getElementById('visits').textContent = ${counter}));
    </script>
  </body>
</html>
`;

const options = (writes?: string[]) => ({
  app: 'data',
  appConfig: { command: 'PORT={port} npm start', ...(writes ? { writes } : {}) },
  spec: SPEC,
  criteria: ['the page is the guestbook', 'the page shows the visit count'] as [string, string],
  // Attempt 1 shows the count without its label; the repair adds it.
  edits: {
    first: { 'public/index.html': page('String(stats.visits)') },
    repair: { 'public/index.html': page("'Visits: ' + stats.visits") },
  },
});

describe.runIf(hasChromium)('an app with a tracked data file', () => {
  it('declared in app.writes: run → FAIL → repair → VERIFIED, then verify; the data file never reaches the change', async () => {
    const stack = makeStack(options(['data/db.json']));
    const { record } = await expectVerifiedLoop(stack);
    // The app counted every request, and none of it reached the stored change or the commit `apply` made.
    expect(gitSync(stack.root, 'diff', '--stat', stack.base, 'HEAD', '--', 'data')).toBe('');
    expect(gitSync(stack.root, 'diff', '--name-only', stack.base, 'HEAD').trim().split('\n')).toEqual(['public/index.html']);
    expect(existsSync(path.join(stack.root, '.elenchos/runs', record.runId))).toBe(true);
  });

  it('undeclared: ERROR UNSTABLE_WORKSPACE naming the file and app.writes, and not NEEDS_HUMAN', async () => {
    const stack = makeStack(options());
    const run = await elenchos(['run', TASK_FILE], stack.root);
    expect(run.code).toBe(2);
    const [record] = storedRuns(stack.root);
    expect(record).toMatchObject({ state: 'ERROR', reason: 'UNSTABLE_WORKSPACE' });
    expect(record!.message).toContain('data/db.json');
    expect(record!.message).toContain('app.writes');
    expect(JSON.parse(runCli(['runs', '--json'], stack.root).stdout).needsHuman).toEqual([]);
    expect(gitSync(stack.root, 'status', '--porcelain')).toBe('');
    expect(processesInside(stack.root)).toEqual([]);
  });
});
