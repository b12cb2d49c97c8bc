#!/usr/bin/env node
// SPEC §10: the git cost of a whole run whose agent, app and verifier take no time, in a
// 10,000-file repository, against the floor of `git worktree add --detach` + `git worktree remove`.
// Target: ≤ 1.1×. Build first: npx tsc -p tsconfig.build.json && node bench/worktree.js [files]
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { makeRepo, median, timeOnce } from './lib.js';
import { snapshotWorkspace } from '../dist/git/snapshot.js';
import { headCommit } from '../dist/git/status.js';
import { saveWorkspace } from '../dist/git/workspace-archive.js';
import { addWorktree, removeWorktree } from '../dist/git/worktree.js';

const run = promisify(execFile);
const files = Number(process.argv[2] ?? 10_000);
const runs = 7;
console.log(`creating a ${files}-file repository...`);
const { base, root, cleanup } = makeRepo(files, 'elenchos-bench-worktree-');
try {
  const head = await headCommit(root);
  const floor = async (i) => {
    const dir = path.join(root, '.elenchos', 'workspaces', `floor-${i}`);
    await run('git', ['worktree', 'add', '--quiet', '--detach', dir, 'HEAD'], { cwd: root });
    await run('git', ['worktree', 'remove', '--force', dir], { cwd: root });
  };
  const ours = async (i) => {
    const dir = path.join(root, '.elenchos', 'workspaces', `run-${i}`);
    await addWorktree(root, dir);
    await snapshotWorkspace(dir); // before the verifier
    const after = await snapshotWorkspace(dir); // after the verifier
    await saveWorkspace(dir, head, path.join(base, 'evidence', `run-${i}`), { snapshot: after });
    await removeWorktree(root, dir);
  };
  await floor('warm');
  await ours('warm');
  // Interleaved, so a noisy neighbour slows both sides alike.
  const floorTimes = [];
  const oursTimes = [];
  for (let i = 0; i < runs; i++) {
    floorTimes.push(await timeOnce(() => floor(i)));
    oursTimes.push(await timeOnce(() => ours(i)));
  }
  const [floorMs, oursMs] = [median(floorTimes), median(oursTimes)];
  console.log(`repository:                     ${files} files`);
  console.log(`floor (worktree add + remove):  ${floorMs.toFixed(1)} ms`);
  console.log(`add + 2 snapshots + save + rm:  ${oursMs.toFixed(1)} ms (+${(oursMs - floorMs).toFixed(1)} ms)`);
  console.log(`ratio:                          ${(oursMs / floorMs).toFixed(2)}x (target <= 1.1x)`);
  console.log(`(median of ${runs} interleaved runs each)`);
} finally {
  cleanup();
}
