// What the demo agent does for each task it knows: plain text edits of the app's source, the way an
// agent's edit tool makes them. Each edit is idempotent, so a repair attempt can re-run a recipe.
import { readFileSync, writeFileSync } from 'node:fs';

/** Replaces `from` with `to` in `file`; does nothing when `to` is already there. */
function edit(file, from, to) {
  const text = readFileSync(file, 'utf8');
  if (text.includes(to)) return false;
  if (!text.includes(from)) throw new Error(`cannot find the code I expected in ${file}; giving up rather than guessing`);
  writeFileSync(file, text.replace(from, to));
  return true;
}

// The mistake: PRIORITIES[2] is "high", not "medium" (the index was counted from 1).
const BUGGY_DEFAULT = "const DEFAULT_PRIORITY = PRIORITIES[2]; // medium";
const FIXED_DEFAULT = "const DEFAULT_PRIORITY = PRIORITIES[1]; // medium";

function priorityBadge({ attempt, failed, say }) {
  const repairing = attempt > 1;
  const fixDefault = repairing && failed.includes('AC-003');
  const implemented = readFileSync('app/store.js', 'utf8').includes('DEFAULT_PRIORITY');
  if (!implemented) {
    say('adding a priority to each task in app/store.js (low / medium / high, with a default)');
    edit(
      'app/store.js',
      "const tasks = [];",
      `export const PRIORITIES = ['low', 'medium', 'high'];\n${fixDefault ? FIXED_DEFAULT : BUGGY_DEFAULT}\n\nconst tasks = [];`,
    );
    edit(
      'app/store.js',
      'const task = { id: nextId++, title: fields.title.trim() };',
      'const priority = PRIORITIES.includes(fields.priority) ? fields.priority : DEFAULT_PRIORITY;\n  const task = { id: nextId++, title: fields.title.trim(), priority };',
    );
    say('adding a Priority select to the form and a badge to each task in app/page.js');
    edit(
      'app/page.js',
      '    <button type="submit">Add</button>',
      `    <select name="priority" aria-label="Priority">
      <option value="">Priority…</option>
      <option value="low">Low</option>
      <option value="medium">Medium</option>
      <option value="high">High</option>
    </select>
    <button type="submit">Add</button>`,
    );
    edit(
      'app/page.js',
      '<span class="title">${escapeHtml(task.title)}</span></li>',
      '<span class="title">${escapeHtml(task.title)}</span> <span class="badge ${task.priority}">${label(task.priority)}</span></li>',
    );
    edit('app/page.js', 'export function escapeHtml(text) {', 'function label(priority) {\n  return priority.charAt(0).toUpperCase() + priority.slice(1);\n}\n\nexport function escapeHtml(text) {');
  } else if (fixDefault) {
    say('AC-003 failed: a task without a priority should be Medium; PRIORITIES[2] is "high" — fixing the index in app/store.js');
    edit('app/store.js', BUGGY_DEFAULT, FIXED_DEFAULT);
  } else {
    say('the feature is in place and no failure I know how to fix was reported; changing nothing');
  }
}

function deleteTask({ say }) {
  say('adding deleteTask to app/store.js');
  edit(
    'app/store.js',
    'export function createTask(fields) {',
    'export function deleteTask(id) {\n  const index = tasks.findIndex((task) => task.id === id);\n  if (index >= 0) tasks.splice(index, 1);\n  return index >= 0;\n}\n\nexport function createTask(fields) {',
  );
  say('adding the POST /tasks/:id/delete route to app/server.js');
  edit('app/server.js', "import { createTask, listTasks } from './store.js';", "import { createTask, deleteTask, listTasks } from './store.js';");
  edit(
    'app/server.js',
    "    send(res, 404, 'text/plain', 'not found');",
    `    const remove = /^\\/tasks\\/(\\d+)\\/delete$/.exec(url.pathname);
    if (req.method === 'POST' && remove) {
      deleteTask(Number(remove[1]));
      return redirect(res, '/');
    }
    send(res, 404, 'text/plain', 'not found');`,
  );
  say('adding a Delete button to each task in app/page.js');
  edit(
    'app/page.js',
    '<span class="title">${escapeHtml(task.title)}</span></li>',
    '<span class="title">${escapeHtml(task.title)}</span> <form method="post" action="/tasks/${task.id}/delete"><button type="submit">Delete</button></form></li>',
  );
}

export const recipes = { 'priority-badge': priorityBadge, 'delete-task': deleteTask };
