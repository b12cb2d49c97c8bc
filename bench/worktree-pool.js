#!/usr/bin/env node
// The worktree pool: time to a ready worktree in a 100,000-file repository, a warm take from the pool (reset of
// what the last user changed) against `git worktree add`, measured side by side in one run.
// Goal: warm at least 10x faster. Build first: npm run build && node bench/worktree-pool.js [--files N] [--rounds N]
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { gitSync, median, timeOnce } from './lib.js';
import { returnWorktree, takeWorktree } from '../dist/core/workspace/worktree-pool.js';
import { addWorktree, removeWorktree } from '../dist/git/worktree.js';

const { values } = parseArgs({ options: { files: { type: 'string', default: '100000' }, rounds: { type: 'string', default: '3' } } });
const files = Number(values.files);
const rounds = Number(values.rounds);

/** A repository of `count` committed files (100 per folder) written by `git fast-import`: no checkout, no hashing in node. */
function makeBigRepo(count) {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'elenchos-bench-pool-')));
  const root = path.join(base, 'repo');
  mkdirSync(root);
  gitSync(root, 'init', '-q', '-b', 'main');
  const chunks = ['commit refs/heads/main\ncommitter bench <b@b> 1700000000 +0000\ndata 7\ninitial\n'];
  const gitignore = 'node_modules/\nbuild/\n*.log\n';
  chunks.push(`M 100644 inline .gitignore\ndata ${Buffer.byteLength(gitignore)}\n${gitignore}\n`);
  for (let i = 1; i < count; i++) {
    const content = `export const value${i} = ${i};\n// ${'x'.repeat(i % 200)}\n`;
    const dir = `src/m${String(Math.floor(i / 100)).padStart(4, '0')}`;
    chunks.push(`M 100644 inline ${dir}/f${i}.js\ndata ${Buffer.byteLength(content)}\n${content}\n`);
  }
  execFileSync('git', ['fast-import', '--quiet'], { cwd: root, input: chunks.join(''), maxBuffer: 1 << 30 });
  return { base, root, cleanup: () => rmSync(base, { recursive: true, force: true, maxRetries: 5 }) };
}

/** What a run's agent and app typically leave: a few edits committed (the next base), a few not, untracked and ignored output. */
function work(dir, round) {
  for (let i = 0; i < 20; i++) writeFileSync(path.join(dir, 'src/m0001', `f${100 + i}.js`), `export const edited = ${round};\n`);
  gitSync(dir, 'commit', '-qam', `change ${round}`);
  for (let i = 0; i < 5; i++) writeFileSync(path.join(dir, 'src/m0002', `f${200 + i}.js`), `uncommitted ${round}\n`);
  mkdirSync(path.join(dir, 'build'), { recursive: true });
  for (let i = 0; i < 100; i++) writeFileSync(path.join(dir, 'build', `out${i}.js`), `ignored ${round}\n`);
  writeFileSync(path.join(dir, `notes-${round}.txt`), 'untracked\n');
  writeFileSync(path.join(dir, 'debug.log'), 'ignored\n');
  return gitSync(dir, 'rev-parse', 'HEAD').trim();
}

console.log(`creating a ${files}-file repository with git fast-import...`);
const setupStart = Date.now();
const { root, cleanup } = makeBigRepo(files);
console.log(`  done in ${((Date.now() - setupStart) / 1000).toFixed(1)} s`);
try {
  const workspaces = path.join(root, '.elenchos', 'workspaces');
  let base = gitSync(root, 'rev-parse', 'main').trim();
  let n = 0;
  // One use fills the pool (its take is a fresh add, not measured).
  const first = path.join(workspaces, `warm-${n++}`);
  const seeded = await takeWorktree({ root, target: first, base, keep: [] });
  base = work(first, 0);
  await returnWorktree({ root, dir: first, index: seeded.index, size: 1 });

  const freshTimes = [];
  const warmTimes = [];
  for (let round = 1; round <= rounds; round++) {
    // Interleaved, so a noisy neighbour slows both sides alike.
    const fresh = path.join(workspaces, `fresh-${round}`);
    freshTimes.push(await timeOnce(() => addWorktree(root, fresh, base)));
    await removeWorktree(root, fresh);

    const warm = path.join(workspaces, `warm-${n++}`);
    let taken;
    warmTimes.push(
      await timeOnce(async () => {
        taken = await takeWorktree({ root, target: warm, base, keep: [] });
      }),
    );
    if (!taken.reusedFrom) throw new Error(`round ${round}: the pool did not serve a warm worktree (${JSON.stringify(taken.discarded)})`);
    base = work(warm, round);
    await returnWorktree({ root, dir: warm, index: taken.index, size: 1 });
  }
  const [freshMs, warmMs] = [median(freshTimes), median(warmTimes)];
  console.log(`repository:                         ${files} files`);
  console.log(`fresh (git worktree add --detach):  ${freshMs.toFixed(0)} ms`);
  console.log(`warm (pool take: reset + clean):    ${warmMs.toFixed(0)} ms`);
  console.log(`ratio:                              ${(freshMs / warmMs).toFixed(1)}x faster warm (goal >= 10x)`);
  console.log(`(median of ${rounds} interleaved rounds; between uses 20 files committed, 5 edited, 102 untracked or ignored)`);
} finally {
  cleanup();
}
