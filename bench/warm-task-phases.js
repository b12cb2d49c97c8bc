#!/usr/bin/env node
// Where one warm `verify` task's CPU goes, phase by phase. Builds the setup-cache bench's app for one
// dependency set (`npm ci --offline` setup, setup.cache on node_modules, the worktree pool), fills the cache
// and the pool with one CLI `verify`, then verifies `tasks` tasks one after another in this process with a
// reporter that reads this process's CPU (process.cpuUsage) and the CPU of the children it has reaped
// (/proc/self/stat cutime+cstime) at each event. Prints, per interval between events, the median over the
// tasks of main-process and children's CPU.
// Usage: npm run build && node bench/warm-task-phases.js [--deps=webapp] [tasks=4]
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { homedir, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEPENDENCY_SETS, lockfileFor, makeRepo, median, oneStepTasks } from './lib.js';

const dist = process.env.ELENCHOS_DIST ?? fileURLToPath(new URL('../dist', import.meta.url));
const { verifyAll } = await import(path.join(dist, 'core/verify/verify-all.js'));
const set = (process.argv.find((arg) => arg.startsWith('--deps=')) ?? '--deps=webapp').slice('--deps='.length);
const count = Number(process.argv.slice(2).find((arg) => !arg.startsWith('--')) ?? 4);
const fakeKane = fileURLToPath(new URL('../test/fixtures/bin/kane-cli', import.meta.url));
const server = "require('http').createServer((q,r)=>r.end('ok')).listen(Number(process.argv[1]),'127.0.0.1')";
const config = {
  app: { command: `node -e "${server}" {port}` },
  setup: {
    command: 'npm ci --offline --no-audit --no-fund',
    timeoutSeconds: 300,
    cache: { key: ['package-lock.json'], paths: ['node_modules'] },
  },
  verifier: { type: 'kane', command: fakeKane, env: { FAKE_KANE_SCENARIO: 'pass', FAKE_KANE_STEP_DELAY_MS: '200' } },
};
const { base, root, cleanup } = makeRepo(100, 'elenchos-bench-phases-', {
  ...lockfileFor(DEPENDENCY_SETS[set]),
  '.gitignore': 'node_modules\n',
  ...oneStepTasks(Math.max(count, 4)),
  'elenchos.config.json': JSON.stringify(config),
});
const home = path.join(base, 'home');
mkdirSync(home);
// HOME is a temp dir for the fake Kane; packages come from the machine's npm cache, never the network.
const npmCache = process.env.npm_config_cache ?? path.join(homedir(), '.npm');
const env = {
  ...process.env,
  HOME: home,
  npm_config_cache: npmCache,
  npm_config_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
};
const bin = path.join(dist, '..', 'bin', 'elenchos.js');
const filled = spawnSync(process.execPath, [bin, 'verify', '--workers', '4', '--json'], { cwd: root, env, encoding: 'utf8' });
if (filled.status !== 0) throw new Error(`filling verify failed: ${filled.stderr}${filled.stdout.slice(-1000)}`);

function childrenCpuMs() {
  const stat = readFileSync('/proc/self/stat', 'latin1');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10;
}
const mark = () => {
  const usage = process.cpuUsage();
  return { main: (usage.user + usage.system) / 1000, children: childrenCpuMs() };
};
const label = (event) =>
  event.type === 'phase'
    ? `${event.phase}: ${event.message.replace(/\d{8}-\d{6}-\d{3}-[0-9a-f]{6}/g, '<run>').slice(0, 60)}`
    : event.type === 'verifier'
      ? `verifier ${event.progress.kind}`
      : event.type;

const intervals = new Map(); // label -> [{main, children}]
for (let i = 1; i <= count; i++) {
  let last = mark();
  let lastLabel = 'start';
  const record = (name) => {
    const now = mark();
    const key = `${lastLabel} -> ${name}`;
    if (!intervals.has(key)) intervals.set(key, []);
    intervals.get(key).push({ main: now.main - last.main, children: now.children - last.children });
    last = now;
    lastLabel = name;
  };
  const result = await verifyAll({
    cwd: root,
    tasks: [`tasks/t${i}.json`],
    env,
    workers: 1,
    signal: new AbortController().signal,
    reporterFor: () => ({
      onEvent: (event) => event.type !== 'output' && record(label(event).replace(/[0-9a-f]{8,}|\d+ ?ms|\d{4,}/g, '…')),
    }),
  });
  record('returned');
  if (result.exitCode !== 0) throw new Error(`task ${i}: exit ${result.exitCode}`);
}
console.log(`[${set}] one warm verify task at a time, ${count} tasks; median CPU per interval, ms (load ${loadavg()[0].toFixed(1)})`);
let [mainTotal, childTotal] = [0, 0];
for (const [key, values] of intervals) {
  const [m, c] = [median(values.map((v) => v.main)), median(values.map((v) => v.children))];
  mainTotal += m;
  childTotal += c;
  console.log(`${m.toFixed(0).padStart(6)} ${c.toFixed(0).padStart(6)}  ${key}  (${values.length})`);
}
console.log(`${mainTotal.toFixed(0).padStart(6)} ${childTotal.toFixed(0).padStart(6)}  total (main, children)`);
cleanup();
