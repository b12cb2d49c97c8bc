#!/usr/bin/env node
// SPEC §10: `elenchos verify` of 8 verifier-bound tasks, --workers 4 vs --workers 1 (target ≥ 3.5×).
// The verifier is the fake kane-cli sleeping FAKE_KANE_STEP_DELAY_MS per step, like a real browser run.
// Usage: npm run build && node bench/verify-workers.js [delayMs]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeRepo, oneStepTasks } from './lib.js';

const delay = Number(process.argv[2] ?? 3000);
const bin = fileURLToPath(new URL('../bin/elenchos.js', import.meta.url));
const fakeKane = fileURLToPath(new URL('../test/fixtures/bin/kane-cli', import.meta.url));
const server = "require('http').createServer((q,r)=>r.end('ok')).listen(Number(process.argv[1]),'127.0.0.1')";
const extra = {
  'elenchos.config.json': JSON.stringify({
    app: { command: `node -e "${server}" {port}` },
    verifier: { type: 'kane', command: fakeKane, env: { FAKE_KANE_SCENARIO: 'pass', FAKE_KANE_STEP_DELAY_MS: String(delay) } },
  }),
  ...oneStepTasks(8),
};
const { root, cleanup } = makeRepo(100, 'elenchos-bench-verify-', extra);
const home = mkdtempSync(path.join(tmpdir(), 'elenchos-bench-home-'));
try {
  const time = (workers) => {
    const start = process.hrtime.bigint();
    const result = spawnSync(process.execPath, [bin, 'verify', '--workers', String(workers), '--json'], {
      cwd: root,
      env: { ...process.env, HOME: home },
      encoding: 'utf8',
    });
    if (result.status !== 0) throw new Error(`verify failed (${result.status}): ${result.stderr}${result.stdout.slice(-1500)}`);
    return Number(process.hrtime.bigint() - start) / 1e6;
  };
  const one = time(1);
  const four = time(4);
  console.log(`8 tasks, verifier ${delay} ms each`);
  console.log(`--workers 1  ${one.toFixed(0)} ms`);
  console.log(`--workers 4  ${four.toFixed(0)} ms`);
  console.log(`speed-up ${(one / four).toFixed(2)}x (target >= 3.5x)`);
} finally {
  cleanup();
  rmSync(home, { recursive: true, force: true });
}
