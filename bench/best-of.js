#!/usr/bin/env node
// Best of N (docs/best-of.md): N candidates in parallel (`run --best-of N --parallel N`) against the same
// N runs one after another. The agent "thinks" for a while (sleep: a coding agent mostly waits on its
// model), then edits a file; the app is a one-line node server, the verifier the fake kane-cli passing.
// Several samples, interleaved and in alternating order (in a row first, then parallel first, …) so that
// a change in the machine's load falls on both sides alike; prints each side's min / median / max and
// the ratio of the medians (SPEC §10: ≤ 0.6 for 3 candidates in parallel against 3 runs in a row).
// Usage: npm run build && node bench/best-of.js [candidates] [agent seconds] [files] [samples]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeRepo, median, timeOnce, oneKaneTask } from './lib.js';

const n = Number(process.argv[2] ?? 3);
const think = Number(process.argv[3] ?? 5);
const files = Number(process.argv[4] ?? 1000);
const samples = Number(process.argv[5] ?? 3);
const bin = fileURLToPath(new URL('../bin/elenchos.js', import.meta.url));
const extra = oneKaneTask(
  { type: 'command', command: '/bin/sh', args: ['-c', `sleep ${think}; echo "$ELENCHOS_CANDIDATE" > done.txt`] },
  // The plain runs use the pool as the candidates do; a pool as large as the candidates.
  { worktreePool: { size: Math.max(4, n) } },
);
console.log(
  `creating a ${files}-file repository; ${n} candidates, agent thinks ${think} s, ${samples} sample(s), ${availableParallelism()} core(s), load ${loadavg()[0].toFixed(1)}`,
);
const { root, cleanup } = makeRepo(files, 'elenchos-bench-best-of-', extra);
const home = mkdtempSync(path.join(tmpdir(), 'elenchos-bench-home-'));
const cli = (args) => {
  const result = spawnSync(process.execPath, [bin, ...args], { cwd: root, env: { ...process.env, HOME: home }, encoding: 'utf8' });
  if (result.status !== 0)
    throw new Error(`elenchos ${args.join(' ')} failed (${result.status}): ${result.stderr}${result.stdout.slice(-2000)}`);
  return result.stdout;
};
try {
  cli(['run', 'tasks/t.json', '--json']); // warms the pool and the listing, for both sides alike
  const inRow = async () =>
    timeOnce(async () => {
      for (let i = 0; i < n; i++) cli(['run', 'tasks/t.json', '--json']);
    });
  const parallel = async () =>
    timeOnce(async () => {
      const record = JSON.parse(cli(['run', 'tasks/t.json', '--best-of', String(n), '--parallel', String(n), '--json']));
      if (record.state !== 'VERIFIED' || record.candidates.length !== n) throw new Error(`best-of run ended ${record.state}`);
    });
  const times = { inRow: [], parallel: [] };
  for (let s = 0; s < samples; s++) {
    // Alternating order: even samples run the plain runs first, odd ones the candidates first.
    const order = s % 2 === 0 ? ['inRow', 'parallel'] : ['parallel', 'inRow'];
    for (const side of order) times[side].push(side === 'inRow' ? await inRow() : await parallel());
    const pair = times.parallel[s] / times.inRow[s];
    console.log(
      `sample ${s + 1} (${order[0] === 'inRow' ? 'in a row first' : 'parallel first'}, load ${loadavg()[0].toFixed(1)}): in a row ${(times.inRow[s] / 1000).toFixed(1)} s, parallel ${(times.parallel[s] / 1000).toFixed(1)} s, ratio ${pair.toFixed(2)}`,
    );
  }
  const line = (label, xs) =>
    `${label} min ${(Math.min(...xs) / 1000).toFixed(1)} s  median ${(median(xs) / 1000).toFixed(1)} s  max ${(Math.max(...xs) / 1000).toFixed(1)} s`;
  console.log(line(`${n} runs in a row:       `, times.inRow));
  console.log(line(`${n} candidates parallel: `, times.parallel));
  const ratio = median(times.parallel) / median(times.inRow);
  console.log(`ratio of medians parallel / in a row: ${ratio.toFixed(2)} (target ≤ 0.6)`);
} finally {
  cleanup();
  rmSync(home, { recursive: true, force: true });
}
