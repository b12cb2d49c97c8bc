#!/usr/bin/env node
// Beyond one machine (docs/scale.md), measured on this one:
// 1. `run <8 tasks> --best-of 2 --parallel K` for K = 1, 2, 4: 16 candidate runs, each agent "thinking" a
//    while (sleep: a coding agent mostly waits on its model); prints each K's time and its speed-up over K = 1.
// 2. The cost of a join (open the export, check it, the one re-verification here) against one `verify` of the
//    same task, in interleaved samples of alternating order (SPEC §10: a join ≤ 1.2× one verify).
// The app is a one-line node server, the verifier the fake kane-cli passing.
// Usage: npm run build && node bench/scale.js [agent seconds] [join samples] [parallel list, or "join" for part 2 alone]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeRepo, median, oneStepTasks, timeOnce } from './lib.js';

const think = Number(process.argv[2] ?? 3);
const samples = Number(process.argv[3] ?? 5);
const parallels = process.argv[4] === 'join' ? [] : (process.argv[4] ?? '1,2,4').split(',').map(Number);
const TASKS = 8;
const bin = fileURLToPath(new URL('../bin/elenchos.js', import.meta.url));
const fakeKane = fileURLToPath(new URL('../test/fixtures/bin/kane-cli', import.meta.url));
const server = "require('http').createServer((q,r)=>r.end('ok')).listen(Number(process.argv[1]),'127.0.0.1')";
const config = {
  agent: { type: 'command', command: '/bin/sh', args: ['-c', `sleep ${think}; echo "$ELENCHOS_CANDIDATE" > done.txt`] },
  app: { command: `node -e "${server}" {port}` },
  verifier: { type: 'kane', command: fakeKane, env: { FAKE_KANE_SCENARIO: 'pass' } },
  worktreePool: { size: 4 },
  tasks: ['tasks/*.json'],
};
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
console.log(`${availableParallelism()} core(s); ${TASKS} tasks × best-of 2, agent thinks ${think} s; load ${load()}`);
const { root, cleanup } = makeRepo(200, 'elenchos-bench-scale-', {
  'elenchos.config.json': JSON.stringify(config),
  ...oneStepTasks(TASKS),
});
const home = mkdtempSync(path.join(tmpdir(), 'elenchos-bench-home-'));
const cli = (args, okCodes = [0]) => {
  const result = spawnSync(process.execPath, [bin, ...args], { cwd: root, env: { ...process.env, HOME: home }, encoding: 'utf8' });
  if (!okCodes.includes(result.status))
    throw new Error(`elenchos ${args.join(' ')} failed (${result.status}): ${result.stderr}${result.stdout.slice(-2000)}`);
  return result.stdout;
};
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
try {
  cli(['run', 'tasks/t1.json', '--json']); // warms the pool and the setup, for every side alike
  // 1. Many tasks at once.
  const times = new Map();
  for (const k of parallels) {
    const ms = await timeOnce(async () => {
      const doc = JSON.parse(cli(['run', '--all', '--best-of', '2', '--parallel', String(k), '--json']));
      if (doc.state !== 'VERIFIED' || doc.runs.length !== TASKS) throw new Error(`--parallel ${k} ended ${doc.state}`);
    });
    times.set(k, ms);
    console.log(`--parallel ${k}: ${seconds(ms)} for ${TASKS * 2} candidate runs (load ${load()})`);
  }
  const one = times.get(parallels[0]);
  for (const k of parallels.slice(1))
    console.log(
      `speed-up --parallel ${k} / --parallel ${parallels[0]}: ${(one / times.get(k)).toFixed(2)}× (linear: ${k / parallels[0]}×)`,
    );

  // 2. A join against one verify of the same task: the export is made once; each sample joins it anew.
  const exported = path.join(home, 'share.tar.gz');
  cli(['run', 'tasks/t1.json', '--best-of', '2', '--shard', '1/1', '--export', exported, '--json']);
  const join = () => timeOnce(async () => void cli(['join', exported, '--json']));
  const verify = () => timeOnce(async () => void cli(['verify', 'tasks/t1.json', '--json']));
  const sides = { join: [], verify: [] };
  for (let s = 0; s < samples; s++) {
    const order = s % 2 === 0 ? ['verify', 'join'] : ['join', 'verify'];
    for (const side of order) sides[side].push(side === 'join' ? await join() : await verify());
    console.log(
      `sample ${s + 1} (${order[0]} first, load ${load()}): verify ${seconds(sides.verify[s])}, join ${seconds(sides.join[s])}, ratio ${(sides.join[s] / sides.verify[s]).toFixed(2)}`,
    );
  }
  const line = (label, xs) => `${label} min ${seconds(Math.min(...xs))}  median ${seconds(median(xs))}  max ${seconds(Math.max(...xs))}`;
  console.log(line('verify:', sides.verify));
  console.log(line('join:  ', sides.join));
  console.log(`ratio of medians join / verify: ${(median(sides.join) / median(sides.verify)).toFixed(2)} (target ≤ 1.2)`);
} finally {
  cleanup();
  rmSync(home, { recursive: true, force: true });
}
