// Vite 5 through the whole loop. Vite bundles vite.config.js to vite.config.js.timestamp-<n>.mjs beside it
// at every start, imports it and deletes it: inside the verifier window, in the tracked tree.
import { describe, it } from 'vitest';
import { expectVerifiedLoop, hasChromium, makeStack } from './stack.js';

const SPEC = `import { expect, test } from '@playwright/test';

test('shows the counter @AC-001', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Counter' })).toBeVisible();
});

test('counts the clicks @AC-002', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Increment' }).click();
  await expect(page.getByText('count is 1')).toBeVisible();
});
`;

const main = (step: number) => `import './style.css';

let count = 0;
document.querySelector('#app').innerHTML = \`<h1>Counter</h1><button type="button">Increment</button><p id="count">count is 0</p>\`;
document.querySelector('button').addEventListener('click', () => {
  count += ${step};
  document.querySelector('#count').textContent = \`count is \${count}\`;
});
`;

describe.runIf(hasChromium)('Vite 5 dev server', () => {
  it('run → FAIL → repair → VERIFIED, then verify: VERIFIED, nothing ignored, nothing flagged', async () => {
    const stack = makeStack({
      app: 'vite',
      // What \`elenchos init\` proposes for a Vite project: its dev script, on the run's port.
      appConfig: { command: 'npm run dev -- --port {port} --strictPort' },
      spec: SPEC,
      criteria: ['the page shows a counter', 'a click on Increment counts one'],
      // Attempt 1 counts by two; the repair by one.
      edits: { first: { 'src/main.js': main(2) }, repair: { 'src/main.js': main(1) } },
    });
    await expectVerifiedLoop(stack);
  });
});
