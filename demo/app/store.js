// The in-memory task store.

const tasks = [];
let nextId = 1;

export function listTasks() {
  return tasks;
}

export function createTask(fields) {
  const task = { id: nextId++, title: fields.title.trim() };
  tasks.push(task);
  return task;
}
