#!/usr/bin/env node
// A scripted stand-in for a coding agent, for `agent.type: "command"`. Elenchos runs it in the worktree
// with the prompt on stdin and in $ELENCHOS_PROMPT_FILE, the task in $ELENCHOS_TASK_FILE and the attempt
// number in $ELENCHOS_ATTEMPT. It really edits the app, like an agent would, and on its first attempt
// at priority-badge it makes a realistic mistake (an off-by-one default priority: High instead of
// Medium). It fixes that only when a repair prompt reports the criterion as failed.
// It never touches tests, task files or configuration.
import { readFileSync } from 'node:fs';
import { recipes } from './recipes.js';

const say = (message) => console.log(`[demo-agent] ${message}`);

const taskFile = process.env.ELENCHOS_TASK_FILE;
if (!taskFile) {
  console.error('[demo-agent] ELENCHOS_TASK_FILE is not set: run me through `elenchos run` (agent.type "command")');
  process.exit(2);
}
const task = JSON.parse(readFileSync(taskFile, 'utf8'));
const attempt = Number(process.env.ELENCHOS_ATTEMPT ?? '1');
const prompt = readPrompt();
const recipe = recipes[task.id];
if (!recipe) {
  say(`attempt ${attempt}: I only know how to do ${Object.keys(recipes).join(', ')}; "${task.id}" is beyond me`);
  process.exit(1);
}

const failed = attempt > 1 ? failedCriteria(prompt) : [];
if (attempt === 1) say(`attempt 1: implementing "${task.title}"`);
else say(`attempt ${attempt}: repair requested; the prompt reports ${failed.length > 0 ? failed.join(', ') : 'no criterion I can read'} as failed`);
try {
  recipe({ attempt, failed, say });
} catch (error) {
  console.error(`[demo-agent] ${error.message}`);
  process.exit(1);
}
say('done');

function readPrompt() {
  const file = process.env.ELENCHOS_PROMPT_FILE;
  if (file) return readFileSync(file, 'utf8');
  return process.stdin.isTTY ? '' : readFileSync(0, 'utf8');
}

/** Criterion ids on lines that report a failure (`FAIL AC-003: …`, `AC-003 … FAILED`). */
function failedCriteria(text) {
  const ids = new Set();
  for (const line of text.split('\n')) {
    if (!/\bfail(ed|ure)?\b/i.test(line)) continue;
    for (const match of line.matchAll(/\b([A-Z][A-Z0-9]*-\d+)\b/gi)) ids.add(match[1].toUpperCase());
  }
  return [...ids];
}
