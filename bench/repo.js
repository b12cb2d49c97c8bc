// Shared by the benches: a throwaway git repository of many small committed files.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const identity = { GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'b@b' };

/** Runs git synchronously (setup only; never what is being measured). */
export function gitSync(cwd, ...args) {
  // No background `gc --auto` after committing thousands of loose objects: it would compete with
  // the measurement and race the clean-up.
  return execFileSync('git', ['-c', 'gc.auto=0', '-c', 'maintenance.auto=false', ...args], { cwd, encoding: 'utf8', maxBuffer: 1 << 30, env: { ...process.env, ...identity } });
}

/** A temp dir holding a repository of `count` small committed files, 100 per folder. */
export function makeRepo(count, prefix) {
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

/** Median of `runs` timings of `fn` in milliseconds. */
export async function timeMedian(runs, fn) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    await fn(i);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}
