#!/usr/bin/env node
// SPEC §10: a whole `elenchos run` of a task whose agent, app and verifier take (almost) no time, in a
// 10,000-file repository, against the floor `git worktree add --detach` + `git worktree remove`.
// Target: ≤ 1.0× (10,000 files); a warm run on 30,000 files ≤ 0.5× (bench/run-phases.js prints both). The agent is /bin/true, the app a one-line node server, the verifier the fake
// kane-cli passing at once: their own start-up (two node processes) is inside "ours".
// Usage: npm run build && node bench/run.js [files] [runs]
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { makeRepo, median, timeOnce, oneKaneTask } from './lib.js';

const files = Number(process.argv[2] ?? 10_000);
const runs = Number(process.argv[3] ?? 5);
const bin = fileURLToPath(new URL('../bin/elenchos.js', import.meta.url));
const extra = oneKaneTask({ type: 'command', command: '/bin/true' });
console.log(`creating a ${files}-file repository...`);
const { root, cleanup } = makeRepo(files, 'elenchos-bench-run-', extra);
const home = mkdtempSync(path.join(tmpdir(), 'elenchos-bench-home-'));
const run = promisify(execFile);
try {
  const floor = [];
  const ours = [];
  for (let i = 0; i < runs; i++) {
    const dir = path.join(root, '.elenchos', 'floor');
    floor.push(
      await timeOnce(async () => {
        await run('git', ['worktree', 'add', '--quiet', '--detach', dir, 'HEAD'], { cwd: root });
        await run('git', ['worktree', 'remove', '--force', dir], { cwd: root });
      }),
    );
    ours.push(
      await timeOnce(async () => {
        const result = spawnSync(process.execPath, [bin, 'run', 'tasks/t.json', '--json'], {
          cwd: root,
          env: { ...process.env, HOME: home },
          encoding: 'utf8',
        });
        if (result.status !== 0) throw new Error(`run failed (${result.status}): ${result.stderr}${result.stdout.slice(-2000)}`);
      }),
    );
  }
  const f = median(floor);
  const o = median(ours);
  console.log(`floor: git worktree add + remove   median ${f.toFixed(0)} ms over ${runs} runs`);
  console.log(`ours:  elenchos run (VERIFIED)      median ${o.toFixed(0)} ms`);
  console.log(`overhead ${(o - f).toFixed(0)} ms, ratio ${(o / f).toFixed(2)}x (target <= 1.0x)`);
} finally {
  cleanup();
  rmSync(home, { recursive: true, force: true });
}
