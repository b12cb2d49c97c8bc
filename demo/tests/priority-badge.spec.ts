// priority-badge: one test per acceptance criterion, named by its tag.
import { expect, test } from '@playwright/test';

test('the add form offers Low, Medium and High priorities', { tag: '@AC-001' }, async ({ page }) => {
  await page.goto('/');
  const options = page.getByLabel('Priority').locator('option');
  await expect(options.filter({ hasText: /^(Low|Medium|High)$/ })).toHaveText(['Low', 'Medium', 'High']);
});

test('a task added with priority High shows a High badge', { tag: '@AC-002' }, async ({ page }) => {
  await page.goto('/');
  await page.getByLabel('Title').fill('Ship the release');
  await page.getByLabel('Priority').selectOption({ label: 'High' });
  await page.getByRole('button', { name: 'Add' }).click();
  const task = page.locator('.task', { hasText: 'Ship the release' });
  await expect(task.locator('.badge')).toHaveText('High');
});

test('a task added without choosing a priority shows a Medium badge', { tag: '@AC-003' }, async ({ page }) => {
  await page.goto('/');
  await page.getByLabel('Title').fill('Water the plants');
  await page.getByRole('button', { name: 'Add' }).click();
  const task = page.locator('.task', { hasText: 'Water the plants' });
  await expect(task.locator('.badge')).toHaveText('Medium');
});
