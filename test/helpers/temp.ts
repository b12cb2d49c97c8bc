// Temp directories and git repositories for tests, removed after each test file.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

const made: string[] = [];

/** Removes every folder tempDir made so far. */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

// After the test file that loaded this module. A suite that shares modules between its files (`isolate:
// false`, as `npm test` does) loads it once per worker, so its config also names test/helpers/each-file.ts,
// which registers the same for every file.
afterAll(removeTempDirs);

/** A fresh empty directory (real path, so symlink checks compare like with like), in `parent` (the temp folder). */
export function tempDir(prefix = 'elenchos-test-', parent = tmpdir()): string {
  const dir = realpathSync(mkdtempSync(path.join(parent, prefix)));
  made.push(dir);
  return dir;
}

/** Writes `files` (path → content) under `root`, creating folders. */
export function writeFiles(root: string, files: Record<string, string>): void {
  for (const [name, content] of Object.entries(files)) {
    const target = path.join(root, name);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
}

/** Runs git in `cwd` with a fixed identity. */
export function gitSync(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
  });
}

/** A git repository holding `files`, committed. */
export function tempRepo(files: Record<string, string>, parent?: string): string {
  const dir = tempDir('elenchos-repo-', parent);
  gitSync(dir, 'init', '-q', '-b', 'main');
  writeFiles(dir, files);
  gitSync(dir, 'add', '-A');
  gitSync(dir, 'commit', '-q', '-m', 'initial');
  return dir;
}

/** A valid task contract with `n` criteria AC-001…, as JSON text. */
export function taskJson(overrides: Record<string, unknown> = {}, n = 2): string {
  const criteria = Array.from({ length: n }, (_, i) => ({ id: `AC-00${i + 1}`, description: `criterion ${i + 1}` }));
  return `${JSON.stringify({ id: 'add-task', title: 'Add a task', description: 'A user can add a task.', acceptanceCriteria: criteria, verification: { testFile: 'tests/add-task_test.md' }, ...overrides }, null, 2)}\n`;
}

/** A Kane test whose step i verifies AC-00i. */
export function kaneTest(n = 2): string {
  const steps = Array.from(
    { length: n },
    (_, i) => `## Step ${i + 1} — check ${i + 1} @verifies AC-00${i + 1}\n\nVerify thing ${i + 1} at {{start_url}}.\n`,
  );
  return `---\nmode: testing\n---\n\n# Add a task\n\n${steps.join('\n')}`;
}

/** A setup cache key file of the test's own (never the tester's `~/.local/state`), made on first use. */
export function tempCacheKeyFile(): string {
  return path.join(tempDir('elenchos-state-'), 'elenchos', 'cache.key');
}
