#!/usr/bin/env node
// Start-up of the light commands against `node -e 0`, interleaved (node, --version, check, node, …), medians
// and the median of the per-round ratios: `elenchos --version` (target ≤ 1.5×) and `elenchos check` of one
// Kane task in a small repository (target ≤ 2×). Wall time of whole processes, as a user waits for them.
// Then `run` of the same no-op Kane task, a few times (each is a whole run): how long after the command
// starts its first line appears (target ≤ 0.5 s), and how long after its last line the process is gone
// (target ≤ 0.5 s). `bench/run-phases.js` prints both on large repositories, with every phase between.
// Usage: npm run build && node bench/cold-start.js [runs=30] [run-rounds=3]
// ELENCHOS_BASE_BIN=<another build's bin/elenchos.js> adds that build's arms (before/after side by side).
import { spawn, spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { makeRepo, median, oneKaneTask } from './lib.js';

const runs = Number(process.argv[2] ?? 30);
const runRounds = Number(process.argv[3] ?? 3);
const bin = fileURLToPath(new URL('../bin/elenchos.js', import.meta.url));
const base = process.env.ELENCHOS_BASE_BIN;
// check needs no app: the config's app is never started. run starts it, and the agent does nothing.
const { root, cleanup } = makeRepo(10, 'elenchos-bench-cold-', oneKaneTask({ type: 'command', command: '/bin/true' }));
const time = (args) => {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { stdio: 'ignore', cwd: root });
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
};
/** One whole `run`: ms from its start to its first line, and from its last line to its exit. */
const timeRun = (runBin) =>
  new Promise((resolve, reject) => {
    const start = performance.now();
    let first = null;
    let last = null;
    const child = spawn(process.execPath, [runBin, 'run', 'tasks/t.json'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] });
    child.stdout.on('data', () => {
      last = performance.now();
      first ??= last - start;
    });
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) reject(new Error(`run exited ${code}`));
      else resolve({ first, exit: performance.now() - last });
    });
  });

const arms = { floor: ['-e', '0'], version: [bin, '--version'], check: [bin, 'check', 'tasks/t.json'] };
if (base) Object.assign(arms, { 'base version': [base, '--version'], 'base check': [base, 'check', 'tasks/t.json'] });
const times = Object.fromEntries(Object.keys(arms).map((arm) => [arm, []]));
try {
  for (const args of Object.values(arms)) time(args); // warm the page cache for every arm
  const loadBefore = loadavg()[0];
  for (let i = 0; i < runs; i++) for (const [arm, args] of Object.entries(arms)) times[arm].push(time(args));
  const f = median(times.floor);
  const line = (label, arm, target) => {
    const pairs = times[arm].map((t, i) => t / times.floor[i]);
    return `${label.padEnd(26)} median ${median(times[arm]).toFixed(1)} ms: ${(median(times[arm]) / f).toFixed(2)}x node -e 0, median pair ${median(pairs).toFixed(2)}x (target <= ${target}x)`;
  };
  console.log(
    `${'node -e 0'.padEnd(26)} median ${f.toFixed(1)} ms over ${runs} interleaved rounds (load ${loadBefore.toFixed(1)} → ${loadavg()[0].toFixed(1)})`,
  );
  console.log(line('elenchos --version', 'version', 1.5));
  console.log(line('elenchos check (one Kane)', 'check', 2));
  if (base) {
    console.log(line('base --version', 'base version', 1.5));
    console.log(line('base check (one Kane)', 'base check', 2));
  }
  if (runRounds > 0) {
    const runBins = base ? { run: bin, 'base run': base } : { run: bin };
    const firsts = Object.fromEntries(Object.keys(runBins).map((arm) => [arm, []]));
    const exits = Object.fromEntries(Object.keys(runBins).map((arm) => [arm, []]));
    for (let i = 0; i < runRounds; i++)
      for (const [arm, runBin] of Object.entries(runBins)) {
        const one = await timeRun(runBin);
        firsts[arm].push(one.first);
        exits[arm].push(one.exit);
      }
    for (const arm of Object.keys(runBins))
      console.log(
        `${`elenchos ${arm} (one Kane)`.replace('elenchos base', 'base').padEnd(26)} first line after ${median(firsts[arm]).toFixed(0)} ms (target <= 500), ` +
          `gone ${median(exits[arm]).toFixed(0)} ms after its last line (target <= 500), median of ${runRounds}`,
      );
  }
} finally {
  cleanup();
}
