// bin/elenchos.js runs the one-file bundle (dist/cli.cjs, scripts/bundle.js) compiled with V8's code cache
// kept beside it, keyed by the build's id: the cache must speed a start up and never change what runs.
// Each case runs a copy of the package (its own dist/cli.cjs and cache; the rest linked to this checkout's).
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { IS_ROOT, WHO, commandAs, type Who } from '../helpers/as-user.js';
import { makeProject } from '../helpers/project.js';
import { tempDir } from '../helpers/temp.js';

const CHECKOUT = fileURLToPath(new URL('../..', import.meta.url));
const BUILD_ID = '\n//# elenchos-build ';

/** A copy of the installed package: bin/ and dist/cli.cjs copied, everything else linked. */
function packageCopy(): string {
  const root = tempDir('elenchos-package-');
  chmodSync(root, 0o755); // the ordinary user runs it too
  mkdirSync(path.join(root, 'bin'));
  for (const file of ['elenchos.js', 'package.json']) copyFileSync(path.join(CHECKOUT, 'bin', file), path.join(root, 'bin', file));
  copyFileSync(path.join(CHECKOUT, 'package.json'), path.join(root, 'package.json'));
  symlinkSync(path.join(CHECKOUT, 'node_modules'), path.join(root, 'node_modules'));
  mkdirSync(path.join(root, 'dist'));
  for (const entry of readdirSync(path.join(CHECKOUT, 'dist'))) {
    if (entry.startsWith('cli.cjs')) continue;
    symlinkSync(path.join(CHECKOUT, 'dist', entry), path.join(root, 'dist', entry));
  }
  copyFileSync(path.join(CHECKOUT, 'dist/cli.cjs'), path.join(root, 'dist/cli.cjs'));
  return root;
}

const cacheOf = (pkg: string) => path.join(pkg, 'dist/cli.cjs.v8cache');
const idOf = (pkg: string) => {
  const source = readFileSync(path.join(pkg, 'dist/cli.cjs'), 'utf8');
  return Buffer.from(source.slice(source.lastIndexOf(BUILD_ID) + BUILD_ID.length).trim(), 'hex');
};

let project: ReturnType<typeof makeProject>;

function check(pkg: string, who: Who = 'root') {
  const spawned = commandAs(who, process.execPath, [path.join(pkg, 'bin/elenchos.js'), 'check', 'tasks/add-task.json']);
  const result = spawnSync(spawned.command, spawned.args, { cwd: project.root, encoding: 'utf8', env: { ...process.env, ...project.env } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

beforeAll(() => {
  project = makeProject();
  // The test user runs the CLI too: it must reach the project (and its HOME) to check it.
  if (IS_ROOT) spawnSync('chmod', ['-R', 'a+rX', project.root, project.home]);
});

describe('the shim and its code cache', () => {
  it('makes the cache after the first run, for this build, and reuses it untouched', () => {
    const pkg = packageCopy();
    const first = check(pkg);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('all 1 task(s) OK');
    const cache = readFileSync(cacheOf(pkg));
    expect(cache.subarray(0, 32).equals(idOf(pkg))).toBe(true);
    expect(cache.length).toBeGreaterThan(1000);
    const { ino } = statSync(cacheOf(pkg));
    const second = check(pkg);
    expect(second).toEqual(first);
    expect(statSync(cacheOf(pkg)).ino, 'a cache V8 took is not written again').toBe(ino);
    expect(readdirSync(path.join(pkg, 'dist')).filter((name) => name.includes('.v8cache.'))).toEqual([]);
  });

  it('never runs a cache of another build, even one V8 would take (same length): the rebuilt code runs', () => {
    const pkg = packageCopy();
    expect(check(pkg).code).toBe(0); // the cache of the first build
    // A rebuild that changes one letter of a message the check prints: same length, new id.
    const bundle = path.join(pkg, 'dist/cli.cjs');
    const source = readFileSync(bundle, 'utf8');
    const code = source.slice(0, source.lastIndexOf(BUILD_ID));
    expect(code).toContain('task(s) OK');
    const rebuilt = code.replaceAll('task(s) OK', 'task(s) Ok');
    const newId = 'f'.repeat(64);
    writeFileSync(bundle, `${rebuilt}${BUILD_ID}${newId}\n`);
    expect(readFileSync(bundle, 'utf8').length).toBe(source.length);
    const after = check(pkg);
    expect(after.code).toBe(0);
    expect(after.stdout).toContain('all 1 task(s) Ok');
    expect(readFileSync(cacheOf(pkg)).subarray(0, 32).toString('hex'), 'made again for the new build').toBe(newId);
  });

  it('the same data under the old id: V8 would run the old code, so the id is what keeps it out (the control)', () => {
    const pkg = packageCopy();
    expect(check(pkg).code).toBe(0);
    const bundle = path.join(pkg, 'dist/cli.cjs');
    const source = readFileSync(bundle, 'utf8');
    // The new code under the OLD id: the shim takes the cache, and V8 (which only compares lengths) runs
    // the cached code, not the file's. Nothing but the id stands between a cache and a rebuild.
    writeFileSync(bundle, source.replace(/task\(s\) OK/g, 'task(s) Ok'));
    const stale = check(pkg);
    expect(stale.code).toBe(0);
    expect(stale.stdout).toContain('all 1 task(s) OK');
  });

  it('a cache V8 refuses (garbage under the right header) is compiled afresh and replaced', () => {
    const pkg = packageCopy();
    const header = Buffer.concat([idOf(pkg), Buffer.from(`${path.join(pkg, 'dist/cli.cjs')}\0`)]);
    writeFileSync(cacheOf(pkg), Buffer.concat([header, Buffer.alloc(4096, 7)]));
    const run = check(pkg);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('all 1 task(s) OK');
    expect(readFileSync(cacheOf(pkg)).subarray(header.length).equals(Buffer.alloc(4096, 7))).toBe(false);
  });

  it('a package moved with its cache makes it again for its new place (V8 keeps the path, for stack traces)', () => {
    const pkg = packageCopy();
    expect(check(pkg).code).toBe(0);
    const moved = packageCopy();
    copyFileSync(cacheOf(pkg), cacheOf(moved));
    const run = check(moved);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('all 1 task(s) OK');
    const cache = readFileSync(cacheOf(moved));
    const bundle = path.join(moved, 'dist/cli.cjs');
    expect(cache.subarray(32, 32 + bundle.length + 1).toString()).toBe(`${bundle}\0`);
  });

  it('a bundle without its build id runs, and no cache is made for it', () => {
    const pkg = packageCopy();
    const bundle = path.join(pkg, 'dist/cli.cjs');
    const source = readFileSync(bundle, 'utf8');
    writeFileSync(bundle, source.slice(0, source.lastIndexOf(BUILD_ID)));
    const run = check(pkg);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('all 1 task(s) OK');
    expect(existsSync(cacheOf(pkg))).toBe(false);
  });

  it('without the bundle, the compiled modules run (a copy built without esbuild)', () => {
    const pkg = packageCopy();
    unlinkSync(path.join(pkg, 'dist/cli.cjs'));
    const run = check(pkg);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('all 1 task(s) OK');
    expect(existsSync(cacheOf(pkg))).toBe(false);
  });

  for (const who of WHO)
    it(`as ${who === 'root' ? 'root' : 'an ordinary user'}, an install it cannot write runs the same, with no cache and nothing left`, () => {
      const pkg = packageCopy();
      chmodSync(path.join(pkg, 'dist'), 0o555);
      try {
        const run = check(pkg, who);
        expect(run.stderr).toBe('');
        expect(run.code).toBe(0);
        expect(run.stdout).toContain('all 1 task(s) OK');
        // Root writes where it likes: the cache is there then, and nothing else.
        const left = readdirSync(path.join(pkg, 'dist')).filter((name) => name.includes('v8cache'));
        expect(left).toEqual(who === 'root' && IS_ROOT ? ['cli.cjs.v8cache'] : []);
      } finally {
        chmodSync(path.join(pkg, 'dist'), 0o755);
      }
    });
});
