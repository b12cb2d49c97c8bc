#!/usr/bin/env node
// SPEC §10: `elenchos --version` cold start vs `node -e 0` (target ≤ 2.5×). Interleaved runs, medians.
// Usage: npm run build && node bench/cold-start.js [runs]
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const runs = Number(process.argv[2] ?? 30);
const bin = fileURLToPath(new URL('../bin/elenchos.js', import.meta.url));
const time = (args) => {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { stdio: 'ignore' });
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
};
const floor = [];
const ours = [];
time(['-e', '0']); // warm the page cache for both
time([bin, '--version']);
for (let i = 0; i < runs; i++) {
  floor.push(time(['-e', '0']));
  ours.push(time([bin, '--version']));
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const f = median(floor);
const o = median(ours);
console.log(`node -e 0            median ${f.toFixed(1)} ms over ${runs} runs`);
console.log(`elenchos --version   median ${o.toFixed(1)} ms`);
console.log(`ratio ${(o / f).toFixed(2)}x (target <= 2.5x)`);
