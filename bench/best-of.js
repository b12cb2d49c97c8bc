#!/usr/bin/env node
// Best of N (docs/best-of.md): N candidates in parallel (`run --best-of N --parallel N`) against the same
// N runs one after another. The agent "thinks" for a while (sleep: a coding agent mostly waits on its
// model), then edits a file; the app is a one-line node server, the verifier the fake kane-cli passing.
// Prints both wall times and the ratio parallel / in a row (below 1: the candidates overlap).
// Usage: npm run build && node bench/best-of.js [candidates] [agent seconds] [files]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeRepo, timeOnce } from './lib.js';

const n = Number(process.argv[2] ?? 3);
const think = Number(process.argv[3] ?? 5);
const files = Number(process.argv[4] ?? 1000);
const bin = fileURLToPath(new URL('../bin/elenchos.js', import.meta.url));
const fakeKane = fileURLToPath(new URL('../test/fixtures/bin/kane-cli', import.meta.url));
const server = "require('http').createServer((q,r)=>r.end('ok')).listen(Number(process.argv[1]),'127.0.0.1')";
const config = {
  agent: { type: 'command', command: '/bin/sh', args: ['-c', `sleep ${think}; echo "$ELENCHOS_CANDIDATE" > done.txt`] },
  app: { command: `node -e "${server}" {port}` },
  verifier: { type: 'kane', command: fakeKane, env: { FAKE_KANE_SCENARIO: 'pass' } },
  // The plain runs use the pool as the candidates do; a pool as large as the candidates.
  worktreePool: { size: Math.max(4, n) },
};
const extra = {
  'elenchos.config.json': JSON.stringify(config),
  'tasks/t.json': JSON.stringify({
    id: 't',
    title: 't',
    description: 'd',
    acceptanceCriteria: [{ id: 'AC-1', description: 'x' }],
    verification: { testFile: 'tests/t_test.md' },
  }),
  'tests/t_test.md': '## Step 1 @verifies AC-1\nVerify it answers.\n',
};
console.log(`creating a ${files}-file repository; ${n} candidates, agent thinks ${think} s, ${availableParallelism()} core(s)`);
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
  const inRow = await timeOnce(async () => {
    for (let i = 0; i < n; i++) cli(['run', 'tasks/t.json', '--json']);
  });
  let record;
  const parallel = await timeOnce(async () => {
    record = JSON.parse(cli(['run', 'tasks/t.json', '--best-of', String(n), '--parallel', String(n), '--json']));
  });
  if (record.state !== 'VERIFIED' || record.candidates.length !== n) throw new Error(`best-of run ended ${record.state}`);
  console.log(`${n} runs in a row:        ${(inRow / 1000).toFixed(1)} s`);
  console.log(`${n} candidates parallel:  ${(parallel / 1000).toFixed(1)} s   (winner ${record.winner.name})`);
  console.log(`ratio parallel / in a row: ${(parallel / inRow).toFixed(2)}`);
} finally {
  cleanup();
  rmSync(home, { recursive: true, force: true });
}
