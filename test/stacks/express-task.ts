// The Express task, shared by express.test.ts and git-housekeeping.test.ts.

export const EXPRESS_SPEC = `import { expect, test } from '@playwright/test';

test('lists the tasks @AC-001', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Tasks' })).toBeVisible();
  await expect(page.getByRole('listitem')).toHaveCount(2);
});

test('marks the done ones @AC-002', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('listitem').filter({ hasText: 'Buy milk' })).toHaveText('Buy milk (done)');
});
`;

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Tasks</title>
  </head>
  <body>
    <h1>Tasks</h1>
    <ul id="tasks"></ul>
    <script>
      fetch('/api/tasks')
        .then((res) => res.json())
        .then((tasks) => {
          for (const task of tasks) {
            const li = document.createElement('li');
            li.textContent = task.done ? task.title + ' (done)' : task.title;
            document.getElementById('tasks').append(li);
          }
        });
    </script>
  </body>
</html>
`;

const server = (doneField: string) => `// An Express 5 app: a static page and a JSON API. PORT from the environment.
import express from 'express';

const app = express();
const tasks = [
  { title: 'Buy milk', ${doneField}: true },
  { title: 'Walk the dog', ${doneField}: false },
];

app.use(express.static('public'));
app.get('/api/tasks', (_req, res) => {
  res.json(tasks);
});

const port = Number(process.env.PORT ?? 3000);
app.listen(port, '127.0.0.1', () => console.log(\`listening on http://127.0.0.1:\${port}/\`));
`;

/** The agent's work: attempt 1 names the field \`completed\` where the page reads \`done\`; the repair renames it. */
export const EXPRESS_EDITS = {
  first: { 'public/index.html': PAGE, 'server.js': server('completed') },
  repair: { 'server.js': server('done') },
};

export const EXPRESS_APP = { command: 'PORT={port} npm start' };
