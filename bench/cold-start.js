#!/usr/bin/env node
// Start-up of the light commands against `node -e 0`, interleaved (node, --version, check, node, …), medians
// and the median of the per-round ratios: `elenchos --version` (target ≤ 1.5×) and `elenchos check` of one
// Kane task in a small repository (target ≤ 2×). Wall time of whole processes, as a user waits for them.
// Usage: npm run build && node bench/cold-start.js [runs=30]
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { makeRepo, median, oneKaneTask } from './lib.js';

const runs = Number(process.argv[2] ?? 30);
const bin = fileURLToPath(new URL('../bin/elenchos.js', import.meta.url));
// check needs no app: the config's app is never started.
const { root, cleanup } = makeRepo(10, 'elenchos-bench-cold-', oneKaneTask({ type: 'command', command: '/bin/true' }));
const time = (args) => {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { stdio: 'ignore', cwd: root });
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
};
const arms = { floor: ['-e', '0'], version: [bin, '--version'], check: [bin, 'check', 'tasks/t.json'] };
const times = { floor: [], version: [], check: [] };
try {
  for (const args of Object.values(arms)) time(args); // warm the page cache for every arm
  const loadBefore = loadavg()[0];
  for (let i = 0; i < runs; i++) for (const [arm, args] of Object.entries(arms)) times[arm].push(time(args));
  const f = median(times.floor);
  const line = (label, arm, target) => {
    const pairs = times[arm].map((t, i) => t / times.floor[i]);
    return `${label} median ${median(times[arm]).toFixed(1)} ms: ${(median(times[arm]) / f).toFixed(2)}x, median pair ${median(pairs).toFixed(2)}x (target <= ${target}x)`;
  };
  console.log(
    `node -e 0                  median ${f.toFixed(1)} ms over ${runs} interleaved rounds (load ${loadBefore.toFixed(1)} → ${loadavg()[0].toFixed(1)})`,
  );
  console.log(line('elenchos --version        ', 'version', 1.5));
  console.log(line('elenchos check (one Kane)', 'check', 2));
} finally {
  cleanup();
}
