#!/usr/bin/env node
// The Playwright target: `elenchos verify` of a passing Playwright suite costs at most 1.1× a bare
// `npx playwright test` of it. A small real todo app and a generated spec of 24 tests; the commands run
// side by side, interleaved (the order rotates each round), and the ratios of medians are printed. A
// third arm verifies with `--retries=0`, where Elenchos records a trace of every test
// (`retain-on-failure`, its policy before it traced only a failed test's retry): the price of tracing everything, measured beside it.
// Usage: npm run build && node bench/playwright-trace-cost.js [rounds=5] [tests=24]
// ELENCHOS_BASE_BIN=<another build's bin/elenchos.js> adds an arm verifying with that build (before/after
// side by side); BENCH_TRACE_ALL=0 leaves out the trace-every-test arm; BENCH_BARE_DIRECT=1 adds a bare arm
// started as `node_modules/.bin/playwright test` (as Elenchos starts it), without npx's own Node process.
// Each arm is timed by the wall clock and by the CPU of its whole process tree (user + system of every
// process it waited for, read from this process's cutime/cstime in /proc/self/stat: what `/usr/bin/time`
// counts). Like for like: both arms run one worker (the user's config says so; Elenchos always does), the
// same Chromium with the same launch switches, headless, and neither records a trace of a passing test.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeRepo, median } from './lib.js';
// Elenchos's own Chromium switches, so both arms launch the same browser.
import { CHROMIUM_ARGS } from '../dist/verifiers/playwright/generate-config.js';

const rounds = Number(process.argv[2] ?? 5);
const count = Number(process.argv[3] ?? 24);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
// ELENCHOS_BIN: a copy of the CLI, so rebuilding dist/ while the bench runs does not change what it measures.
const bin = process.env.ELENCHOS_BIN ?? path.join(ROOT, 'bin/elenchos.js');
const browser = process.env.ELENCHOS_BROWSER_PATH ?? '/usr/bin/chromium';
if (!existsSync(browser)) {
  console.error(`bench: no Chromium at ${browser} (set ELENCHOS_BROWSER_PATH)`);
  process.exit(2);
}
const port = 43000 + Math.floor(Math.random() * 2000);

// A todo list: add with Enter, toggle, count, clear completed, persisted in localStorage.
const INDEX = `<!doctype html><html><head><meta charset="utf-8"><title>Todos</title></head><body>
<h1>todos</h1><input id="new" placeholder="What needs to be done?" autofocus>
<ul id="list"></ul><p><span id="count">0 items left</span> <button id="clear">Clear completed</button></p>
<script>
const key = 'todos';
let todos = JSON.parse(localStorage.getItem(key) || '[]');
const list = document.getElementById('list');
function render() {
  list.innerHTML = '';
  for (const [i, t] of todos.entries()) {
    const li = document.createElement('li');
    const box = document.createElement('input');
    box.type = 'checkbox'; box.checked = t.done; box.setAttribute('aria-label', 'toggle ' + t.title);
    box.onchange = () => { todos[i].done = box.checked; save(); };
    li.append(box, ' ', t.title);
    if (t.done) li.className = 'done';
    list.append(li);
  }
  const left = todos.filter((t) => !t.done).length;
  document.getElementById('count').textContent = left + (left === 1 ? ' item left' : ' items left');
}
function save() { localStorage.setItem(key, JSON.stringify(todos)); render(); }
document.getElementById('new').onkeydown = (e) => {
  if (e.key === 'Enter' && e.target.value.trim()) { todos.push({ title: e.target.value.trim(), done: false }); e.target.value = ''; save(); }
};
document.getElementById('clear').onclick = () => { todos = todos.filter((t) => !t.done); save(); };
render();
</script></body></html>`;

const appDelayMs = Number(process.env.BENCH_APP_DELAY_MS ?? 0);
const SERVER = `import { readFileSync } from 'node:fs';
import http from 'node:http';
const flag = process.argv.indexOf('--port');
const port = Number(flag >= 0 ? process.argv[flag + 1] : process.env.PORT);
const page = readFileSync(new URL('./index.html', import.meta.url));
const server = http.createServer((req, res) => { res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }); res.end(page); });
setTimeout(() => server.listen(port, '127.0.0.1'), ${appDelayMs});
`;

function spec(n) {
  const tests = [];
  for (let i = 1; i <= n; i++) {
    const id = `@AC-00${(i % 3) + 1}`;
    const items = Array.from({ length: (i % 4) + 1 }, (_, k) => `task ${i}.${k + 1}`);
    tests.push(`test('todo flow ${i}', { tag: '${id}' }, async ({ page }) => {
  await page.goto('/');
  const input = page.getByPlaceholder('What needs to be done?');
  for (const item of ${JSON.stringify(items)}) { await input.fill(item); await input.press('Enter'); }
  await expect(page.locator('#list li')).toHaveCount(${items.length});
  await page.getByLabel('toggle ${items[0]}').check();
  await expect(page.locator('#count')).toHaveText('${items.length - 1} ${items.length - 1 === 1 ? 'item' : 'items'} left');
  await page.getByRole('button', { name: 'Clear completed' }).click();
  await expect(page.locator('#list li')).toHaveCount(${items.length - 1});
  await page.reload();
  await expect(page.locator('#list li')).toHaveCount(${items.length - 1});
});`);
  }
  return `import { expect, test } from '@playwright/test';\n\n${tests.join('\n\n')}\n`;
}

// The user's own config for the bare run: their app started by webServer, the same browser, one worker
// (what Elenchos runs; Playwright's default is half the cores, which is 1 only on a two-core machine).
const USER_CONFIG = `export default {
  testDir: 'tests',
  workers: 1,
  webServer: { command: 'node app/server.js --port ${port}', url: 'http://127.0.0.1:${port}/', reuseExistingServer: false },
  use: { baseURL: 'http://127.0.0.1:${port}/', launchOptions: { executablePath: ${JSON.stringify(browser)}, args: ${JSON.stringify(CHROMIUM_ARGS)} } },
};
`;

const criteria = [1, 2, 3].map((i) => ({ id: `AC-00${i}`, description: `todo criterion ${i}` }));
const { root, cleanup } = makeRepo(0, 'elenchos-bench-pw-', {
  '.gitignore': 'node_modules\ntest-results\nplaywright-report\n',
  'app/index.html': INDEX,
  'app/server.js': SERVER,
  'package.json': '{ "type": "module", "private": true }\n',
  [`tests/todo.spec.ts`]: spec(count),
  'playwright.config.mjs': USER_CONFIG,
  'tasks/todo.json': JSON.stringify({
    id: 'todo',
    title: 'Todos',
    description: 'A todo list.',
    acceptanceCriteria: criteria,
    verification: { testFile: 'tests/todo.spec.ts' },
  }),
  'elenchos.config.json': JSON.stringify({
    app: { command: 'node app/server.js --port {port}', readyTimeoutSeconds: 30 },
    verifier: { type: 'playwright', browserPath: browser, timeoutSeconds: 600 },
  }),
  'elenchos.trace-all.json': JSON.stringify({
    app: { command: 'node app/server.js --port {port}', readyTimeoutSeconds: 30 },
    verifier: { type: 'playwright', browserPath: browser, timeoutSeconds: 600, args: ['--retries=0'] },
  }),
});
symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'), 'dir');

const env = { ...process.env, FORCE_COLOR: '0' };
// CPU seconds (user + system) of every child this process and its descendants waited for, so far.
// Linux's USER_HZ is 100 on every architecture Node supports (the kernel scales the stat fields to it).
const childCpu = () => {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100; // cutime, cstime (fields 16 and 17 of stat)
};
const run = (label, command, args) => {
  const cpu = childCpu();
  const start = process.hrtime.bigint();
  const result = spawnSync(command, args, { cwd: root, env, encoding: 'utf8', maxBuffer: 1 << 28 });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) {
    // Thrown, not process.exit: the finally below removes the repository.
    throw new Error(`${label} exited ${result.status}:\n${(result.stdout + result.stderr).slice(-3000)}`);
  }
  return { ms, cpu: childCpu() - cpu };
};
const bare = () => run('npx playwright test', 'npx', ['--no', 'playwright', 'test', '--reporter=line']);
const arms = {
  bare,
  verify: () => run('elenchos verify', process.execPath, [bin, 'verify', 'tasks/todo.json']),
};
if (process.env.BENCH_BARE_DIRECT === '1')
  arms.bareDirect = () => run('playwright test', path.join(root, 'node_modules/.bin/playwright'), ['test', '--reporter=line']);
if (process.env.BENCH_TRACE_ALL !== '0')
  arms.traceAll = () =>
    run('elenchos verify (trace every test)', process.execPath, [bin, 'verify', '--config', 'elenchos.trace-all.json', 'tasks/todo.json']);
if (process.env.ELENCHOS_BASE_BIN)
  arms.verifyBase = () =>
    run('elenchos verify (base build)', process.execPath, [process.env.ELENCHOS_BASE_BIN, 'verify', 'tasks/todo.json']);
const names = Object.keys(arms);
const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;

try {
  console.log(
    `bare: npx --no playwright test --reporter=line, the user's config: workers 1, retries 0, trace off, screenshot off, app by webServer`,
  );
  console.log(
    `verify: elenchos verify, its generated config: workers 1, retries 1, trace on-first-retry, screenshot off (a failure's picture comes from its trace), reporters list + json + progress, app by app.command, plus its listing (playwright test --list)`,
  );
  console.log(
    `both: ${count} tests, the app listening ${appDelayMs} ms after it starts, headless Chromium ${browser} with the same switches; load average at start ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
  );
  // One unmeasured round of each warms the disk cache and Playwright's TypeScript transform cache.
  for (const name of names) arms[name]();
  const times = Object.fromEntries(names.map((name) => [name, []]));
  const cpus = Object.fromEntries(names.map((name) => [name, []]));
  for (let i = 0; i < rounds; i++) {
    const order = names.map((_, k) => names[(k + i) % names.length]);
    for (const name of order) {
      const { ms, cpu } = arms[name]();
      times[name].push(ms);
      cpus[name].push(cpu);
    }
    console.log(
      `round ${i + 1}: ${names.map((name) => `${name} ${seconds(times[name].at(-1))} (cpu ${cpus[name].at(-1).toFixed(2)} s)`).join(', ')}`,
    );
  }
  const m = Object.fromEntries(names.map((name) => [name, median(times[name])]));
  const c = Object.fromEntries(names.map((name) => [name, median(cpus[name])]));
  console.log(
    `${count} tests, ${rounds} interleaved rounds, medians: ${names.map((name) => `${name} ${seconds(m[name])} (cpu ${c[name].toFixed(2)} s)`).join(', ')}`,
  );
  const pairwise = (series, name) => series[name].map((t, i) => t / series.bare[i]);
  const show = (xs) => xs.map((x) => x.toFixed(2)).join(' ');
  for (const name of names.filter((n) => n !== 'bare')) {
    const wall = pairwise(times, name);
    const cpu = pairwise(cpus, name);
    console.log(
      `${name} / bare: wall ${(m[name] / m.bare).toFixed(3)} (pairs ${show(wall)}, median ${median(wall).toFixed(3)}), cpu ${(c[name] / c.bare).toFixed(3)} (pairs ${show(cpu)}, median ${median(cpu).toFixed(3)})${name === 'verify' ? ' (target ≤ 1.10)' : ''}`,
    );
  }
  const spread = (name) => `${seconds(Math.min(...times[name]))}–${seconds(Math.max(...times[name]))}`;
  console.log(`wall spread (min–max): ${names.map((name) => `${name} ${spread(name)}`).join(', ')}`);
  console.log(`load average at the end ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
} finally {
  rmSync(path.join(root, 'node_modules'), { force: true });
  cleanup();
}
