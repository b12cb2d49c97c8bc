// Setup helpers shared by the benches (never measured themselves).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const identity = { GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'b@b' };

/** Runs git synchronously for setup. No background `gc --auto` after committing thousands of loose
 * objects: it would compete with the measurement and race the clean-up. */
export function gitSync(cwd, ...args) {
  const env = { ...process.env, ...identity };
  return execFileSync('git', ['-c', 'gc.auto=0', '-c', 'maintenance.auto=false', ...args], {
    cwd,
    env,
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
}

/** A temp dir holding a repository of `count` small committed files, 100 per folder, plus `extra` files. */
export function makeRepo(count, prefix, extra = {}) {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  const root = path.join(base, 'repo');
  for (let i = 0; i < count; i++) {
    const dir = path.join(root, 'src', `m${String(Math.floor(i / 100)).padStart(4, '0')}`);
    if (i % 100 === 0) mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `f${i}.js`), `export const value${i} = ${i};\n// ${'x'.repeat(i % 200)}\n`);
  }
  for (const [name, content] of Object.entries(extra)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), content);
  }
  gitSync(root, 'init', '-q', '-b', 'main');
  gitSync(root, 'add', '-A');
  gitSync(root, 'commit', '-q', '-m', 'initial');
  return { base, root, cleanup: () => rmSync(base, { recursive: true, force: true, maxRetries: 5 }) };
}

/** Milliseconds taken by `fn`. */
export async function timeOnce(fn) {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** `count` one-criterion contracts `tasks/t<i>.json`, each verified by step 1 of `tests/t_test.md`. */
export function oneStepTasks(count) {
  const files = { 'tests/t_test.md': '## Step 1 @verifies AC-1\nVerify it answers.\n' };
  for (let i = 1; i <= count; i++) {
    files[`tasks/t${i}.json`] = JSON.stringify({
      id: `t${i}`,
      title: 't',
      description: 'd',
      acceptanceCriteria: [{ id: 'AC-1', description: 'x' }],
      verification: { testFile: 'tests/t_test.md' },
    });
  }
  return files;
}
