// The HTML of the one page: the form and the list.

export function renderPage(tasks) {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Todo</title>
  <style>
    body { font-family: system-ui, sans-serif; max-width: 36rem; margin: 2rem auto; }
    form { display: flex; gap: .5rem; margin-bottom: 1rem; }
    li { display: flex; gap: .5rem; align-items: center; padding: .25rem 0; }
    .badge { font-size: .75rem; padding: .1rem .4rem; border-radius: .5rem; background: #eee; }
    .badge.high { background: #fdd; } .badge.low { background: #dfd; }
  </style>
</head>
<body>
  <h1>Todo</h1>
  ${renderForm()}
  <ul id="tasks">${tasks.map(renderTask).join('')}</ul>
  ${tasks.length === 0 ? '<p id="empty">Nothing to do yet.</p>' : ''}
</body>
</html>`;
}

function renderForm() {
  return `<form method="post" action="/tasks">
    <input name="title" aria-label="Title" placeholder="What needs doing?" required>
    <button type="submit">Add</button>
  </form>`;
}

function renderTask(task) {
  return `<li class="task" data-id="${task.id}"><span class="title">${escapeHtml(task.title)}</span></li>`;
}

export function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}
