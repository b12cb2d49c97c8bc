// Setup helpers shared by the benches (never measured themselves).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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

/** The setup benches' dependency sets (see bench/setup-cache.js). */
export const DEPENDENCY_SETS = {
  small: ['commander', 'zod', 'fast-glob', 'execa', 'tar'],
  webapp: ['express', 'vite', 'vitest', 'typescript', 'eslint'],
};
const projectLock = JSON.parse(readFileSync(fileURLToPath(new URL('../package-lock.json', import.meta.url)), 'utf8'));

/**
 * package.json + package-lock.json for the direct dependencies `names`: the part of this project's
 * lockfile they reach (node's lookup from each package's folder upwards, optional and peer dependencies
 * included), at the versions npm resolved for this project. npm ci --offline then needs only tarballs
 * this machine's cache holds, not registry metadata.
 */
export function lockfileFor(names) {
  const packages = projectLock.packages;
  const resolve = (from, name) => {
    for (let at = from; ;) {
      const candidate = `${at ? `${at}/` : ''}node_modules/${name}`;
      if (packages[candidate]) return candidate;
      if (!at) return null;
      const up = at.lastIndexOf('/node_modules/');
      at = up < 0 ? '' : at.slice(0, up);
    }
  };
  const reached = new Set();
  const queue = names.map((name) => resolve('', name));
  while (queue.length > 0) {
    const at = queue.pop();
    if (!at || reached.has(at)) continue;
    reached.add(at);
    const entry = packages[at];
    for (const name of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies, ...entry.peerDependencies }))
      queue.push(resolve(at, name));
  }
  const dependencies = Object.fromEntries(names.map((name) => [name, packages[`node_modules/${name}`].version]));
  const lock = {
    name: 'bench-app',
    version: '1.0.0',
    lockfileVersion: 3,
    requires: true,
    packages: { '': { name: 'bench-app', version: '1.0.0', dependencies } },
  };
  for (const at of [...reached].sort()) {
    // All are the app's own dependencies here: no dev/peer flags carried over from this project's lockfile.
    const entry = { ...packages[at] };
    for (const flag of ['dev', 'devOptional', 'peer']) delete entry[flag];
    lock.packages[at] = entry;
  }
  return {
    'package.json': `${JSON.stringify({ name: 'bench-app', version: '1.0.0', private: true, dependencies }, null, 2)}\n`,
    'package-lock.json': `${JSON.stringify(lock, null, 2)}\n`,
  };
}

/** The fake Kane CLI of the tests, and a one-line HTTP server taking its port as its argument. */
export const FAKE_KANE = fileURLToPath(new URL('../test/fixtures/bin/kane-cli', import.meta.url));
const SERVER = "require('http').createServer((q,r)=>r.end('ok')).listen(Number(process.argv[1]),'127.0.0.1')";

/** A repository's files for one no-op Kane task `tasks/t.json` (one criterion, one step) run by `agent`, with `more` config keys. */
export function oneKaneTask(agent, more = {}) {
  const config = {
    agent,
    app: { command: `node -e "${SERVER}" {port}` },
    verifier: { type: 'kane', command: FAKE_KANE, env: { FAKE_KANE_SCENARIO: 'pass' } },
    ...more,
  };
  return {
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
}
