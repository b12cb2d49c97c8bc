#!/usr/bin/env node
// The cost of watching the verifier window (docs/verification.md): open and close the watch over a
// 100,000-file repository (1,000 folders), plus a git-ignored node_modules-like folder that is not
// watched, vs the snapshot that runs anyway. Reports time, inotify watches and memory.
// Build first: npm run build && node bench/window-watch.js [files]
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeRepo, median, timeOnce } from './lib.js';
import { snapshotWorkspace } from '../dist/git/snapshot.js';
import { watchWindow } from '../dist/git/window-watch.js';

const files = Number(process.argv[2] ?? 100_000);
const runs = 5;
console.log(`creating a ${files}-file repository...`);
const { root, cleanup } = makeRepo(files, 'elenchos-bench-watch-', { '.gitignore': 'node_modules/\n' });
try {
  // 20,000 ignored files in 2,000 folders: what a node_modules would cost if it were watched.
  for (let i = 0; i < 20_000; i++) {
    const dir = path.join(root, 'node_modules', `p${Math.floor(i / 10)}`);
    if (i % 10 === 0) mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `i${i}.js`), '0\n');
  }
  const opens = [];
  const closes = [];
  const snapshots = [];
  let directories = 0;
  let rss = 0;
  for (let i = 0; i < runs; i++) {
    snapshots.push(await timeOnce(() => snapshotWorkspace(root)));
    const before = process.memoryUsage().rss;
    let watch;
    opens.push(await timeOnce(async () => (watch = await watchWindow(root))));
    rss = Math.max(rss, process.memoryUsage().rss - before);
    writeFileSync(path.join(root, 'src/m0000/f7.js'), 'changed\n'); // one write the window must see
    let report;
    closes.push(await timeOnce(async () => (report = await watch.close())));
    if (!report.ok || report.written.join() !== 'src/m0000/f7.js') throw new Error(`the watch missed the write: ${JSON.stringify(report)}`);
    directories = report.directories;
  }
  console.log(`repository:       ${files} files in ${directories} watched folders (+ 20000 ignored files in node_modules/, not watched)`);
  console.log(`open the watch:   median ${median(opens).toFixed(1)} ms (list folders, one inotify watch each, prove it sees)`);
  console.log(`close the watch:  median ${median(closes).toFixed(1)} ms (last marker, filter through git check-ignore)`);
  console.log(`memory:           +${(rss / 1024 / 1024).toFixed(1)} MB RSS while open`);
  console.log(`snapshot (runs anyway, twice per attempt): median ${median(snapshots).toFixed(1)} ms`);
} finally {
  cleanup();
}
