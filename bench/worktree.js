#!/usr/bin/env node
// SPEC §10: the git cost of a whole run whose agent, app and verifier take no time, in a
// 10,000-file repository, against the floor of `git worktree add --detach` + `git worktree remove`.
// Target: ≤ 1.1×. Build first: npx tsc -p tsconfig.build.json && node bench/worktree.js [files]
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { snapshotWorkspace } from '../dist/git/snapshot.js';
import { headCommit } from '../dist/git/status.js';
import { saveWorkspace } from '../dist/git/workspace-archive.js';
import { addWorktree, removeWorktree } from '../dist/git/worktree.js';

// ---- setup helpers (never measured) ----
const identity = { GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'b@b' };

/** Runs git synchronously for setup. No background `gc --auto` after committing thousands of loose
 * objects: it would compete with the measurement and race the clean-up. */
function gitSync(cwd, ...args) {
  const env = { ...process.env, ...identity };
  return execFileSync('git', ['-c', 'gc.auto=0', '-c', 'maintenance.auto=false', ...args], { cwd, env, encoding: 'utf8', maxBuffer: 1 << 30 });
}

/** A temp dir holding a repository of `count` small committed files, 100 per folder. */
function makeRepo(count, prefix) {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  const root = path.join(base, 'repo');
  for (let i = 0; i < count; i++) {
    const dir = path.join(root, 'src', `m${String(Math.floor(i / 100)).padStart(4, '0')}`);
    if (i % 100 === 0) mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `f${i}.js`), `export const value${i} = ${i};\n// ${'x'.repeat(i % 200)}\n`);
  }
  gitSync(root, 'init', '-q', '-b', 'main');
  gitSync(root, 'add', '-A');
  gitSync(root, 'commit', '-q', '-m', 'initial');
  return { base, root, cleanup: () => rmSync(base, { recursive: true, force: true, maxRetries: 5 }) };
}

/** Milliseconds taken by `fn`. */
async function timeOnce(fn) {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
// ----

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
