#!/usr/bin/env node
// SPEC §10: snapshot + archive of a one-file change in a 50,000-file repository vs `tar czf` of the
// whole tree. Target: ≥ 20× faster, archive size proportional to the change.
// Build first: npx tsc -p tsconfig.build.json && node bench/snapshot.js [files]
import { execFileSync } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gitSync, makeRepo, median, timeOnce } from './lib.js';
import { snapshotWorkspace } from '../dist/git/snapshot.js';
import { saveWorkspace } from '../dist/git/workspace-archive.js';

const files = Number(process.argv[2] ?? 50_000);
const runs = 5;
console.log(`creating a ${files}-file repository...`);
const { base, root, cleanup } = makeRepo(files, 'elenchos-bench-snapshot-');
try {
  const head = gitSync(root, 'rev-parse', 'HEAD').trim();
  writeFileSync(path.join(root, 'src/m0000/f7.js'), 'export const value7 = "changed";\n');
  gitSync(root, 'status', '--porcelain'); // refresh the index once, as any earlier step of a run would

  const tarFile = path.join(base, 'tree.tgz');
  let archiveBytes = 0;
  let archiveFiles = 0;
  const tarTimes = [];
  const oursTimes = [];
  const saveTimes = [];
  const statusTimes = [];
  // Interleaved, so a noisy neighbour slows every side alike.
  for (let i = 0; i < runs; i++) {
    tarTimes.push(await timeOnce(() => execFileSync('tar', ['czf', tarFile, '--exclude=./.git', '-C', root, '.'])));
    // What the run loop does after the verifier: snapshot (the stability proof), then store the
    // workspace reusing that snapshot's list of changed paths.
    oursTimes.push(
      await timeOnce(async () => {
        const snapshot = await snapshotWorkspace(root);
        const saved = await saveWorkspace(root, head, path.join(base, `ws-${i}`), { snapshot });
        archiveBytes = saved.bytes;
        archiveFiles = saved.files;
      }),
    );
    // The floor of any approach built on git: one status, which must lstat every tracked file.
    statusTimes.push(
      await timeOnce(() => execFileSync('git', ['status', '--porcelain=v2', '--branch', '-z', '--untracked-files=all'], { cwd: root })),
    );
    // saveWorkspace on its own, scanning the tree itself.
    saveTimes.push(await timeOnce(() => saveWorkspace(root, head, path.join(base, `alone-${i}`))));
  }
  const [tarMs, oursMs, saveMs, statusMs] = [median(tarTimes), median(oursTimes), median(saveTimes), median(statusTimes)];
  const tarBytes = statSync(tarFile).size;
  console.log(`repository:          ${files} files (+ .git), one file changed`);
  console.log(`tar czf whole tree:  ${tarMs.toFixed(1)} ms, ${tarBytes} bytes`);
  console.log(`snapshot + save:     ${oursMs.toFixed(1)} ms, ${archiveBytes} bytes (${archiveFiles} file)`);
  console.log(`save alone:          ${saveMs.toFixed(1)} ms`);
  console.log(`bare git status:     ${statusMs.toFixed(1)} ms (the floor of a git-based snapshot)`);
  console.log(
    `speed-up:            ${(tarMs / oursMs).toFixed(1)}x snapshot + save, ${(tarMs / saveMs).toFixed(1)}x save alone (target >= 20x)`,
  );
  console.log(`size ratio:          ${(tarBytes / archiveBytes).toFixed(0)}x smaller`);
  console.log(`(median of ${runs} interleaved runs each)`);
} finally {
  cleanup();
}
