// add-task: already built; `elenchos verify` checks it against the committed code.
import { expect, test } from '@playwright/test';

test('the add form is visible', { tag: '@AC-001' }, async ({ page }) => {
  await page.goto('/');
  await expect(page.getByLabel('Title')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Add' })).toBeVisible();
});

test('a new task appears in the list', { tag: '@AC-002' }, async ({ page }) => {
  await page.goto('/');
  await page.getByLabel('Title').fill('Buy milk');
  await page.getByRole('button', { name: 'Add' }).click();
  await expect(page.locator('.task', { hasText: 'Buy milk' })).toHaveCount(1);
});
