// delete-task: one test per acceptance criterion, named by its tag.
import { expect, test, type Page } from '@playwright/test';

async function addTask(page: Page, title: string) {
  await page.getByLabel('Title').fill(title);
  await page.getByRole('button', { name: 'Add' }).click();
}

test('each task has a Delete button', { tag: '@AC-001' }, async ({ page }) => {
  await page.goto('/');
  await addTask(page, 'Call the plumber');
  const task = page.locator('.task', { hasText: 'Call the plumber' });
  await expect(task.getByRole('button', { name: 'Delete' })).toBeVisible();
});

test('Delete removes that task and keeps the others', { tag: '@AC-002' }, async ({ page }) => {
  await page.goto('/');
  await addTask(page, 'Keep me');
  await addTask(page, 'Remove me');
  await page.locator('.task', { hasText: 'Remove me' }).getByRole('button', { name: 'Delete' }).click();
  await expect(page.locator('.task', { hasText: 'Remove me' })).toHaveCount(0);
  await expect(page.locator('.task', { hasText: 'Keep me' })).toHaveCount(1);
});
