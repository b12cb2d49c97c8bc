// What an app writes by design: the built-in dev-server writes, the folders an app may create, and
// the reset of its data to the base commit, on a real git repository.
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { appWriteGlobs, declaredFolders, verifierReadGlobs } from '../../src/config/app-writes.js';
import { AppConfigSchema } from '../../src/config/config-schema.js';
import { resetAppData } from '../../src/git/app-data.js';
import { globMatcher } from '../../src/util/glob-match.js';
import { gitSync, tempDir, tempRepo } from '../helpers/temp.js';

describe('the built-in app writes', () => {
  const builtIn = globMatcher(appWriteGlobs([]));
  it.each([
    ['vite.config.js.timestamp-1764842400000-4e1b2c3d.mjs', true],
    ['apps/web/vite.config.ts.timestamp-1764842400000-4e1b2c3d.mjs', true],
    ['next-env.d.ts', true],
    ['apps/web/.next/server/app.js', true],
    ['.nuxt/nuxt.d.ts', true],
    ['.svelte-kit/generated/root.js', true],
    ['mysite/polls/__pycache__/views.cpython-312.pyc', true],
    ['mysite/db.sqlite3', true],
    ['log/development.log', true],
    ['tmp/pids/server.pid', true],
    ['tmp/restart.txt', true],
    // At any depth: a dev server writes in its own working folder (docs/verification.md).
    ['apps/web/cache/config.json', true],
    ['backend/log/development.log', true],
    ['backend/tmp/pids/server.pid', true],
    ['backend/tmp/cache/bootsnap/load-path-cache', true],
    ['backend/tmp/local_secret.txt', true],
    ['backend/storage/development.sqlite3', true],
    ['backend/storage/development.sqlite3-wal', true],
    ['db/development.sqlite3', true],
    ['apps/site/.data/kv/counter.json', true],
    ['apps/site/.nuxt/nuxt.d.ts', true],
    // Looked up and left out: a project's own files under these common names stay the agent's change.
    ['backend/tmp/fixtures.json', false],
    ['backend/log/production.log', false],
    ['storage/test.sqlite3', false],
    ['storage/development_cache.sqlite3', false],
    ['db/seeds.sqlite3', false],
    ['storage/ab/cd/abcdef123', false],
    ['build/index.js', false],
    ['public/build/entry.client-X.js', false],
    ['.cache/info.json', false],
    ['.data/seed.json', false],
    // The project's own files stay the agent's change.
    ['vite.config.js', false],
    ['tmp/fixtures.json', false],
    ['log/production.log', false],
    ['src/next.config.js', false],
    ['page.html', false],
  ])('%s → %s', (file, expected) => {
    expect(builtIn(file)).toBe(expected);
  });

  it('an app may create the folders before the first wildcard of a glob, and no other', () => {
    // `cache` (Next's telemetry), `log`, `storage`, `db` and `tmp` (Rails), `.data` (Nitro) come from the
    // built-in list, at any depth; a declared glob that starts with `**/` names its folders at any depth too.
    expect(declaredFolders(['data/db.json', 'var/log/**', 'uploads/*.png', '**/reports/*.json'])).toEqual([
      '**/.astro',
      '**/.data',
      '**/.data/kv',
      '**/.next',
      '**/.nuxt',
      '**/.svelte-kit',
      '**/__pycache__',
      '**/cache',
      '**/db',
      '**/log',
      '**/reports',
      '**/storage',
      '**/tmp',
      '**/tmp/cache',
      '**/tmp/pids',
      '**/tmp/sockets',
      '**/tmp/storage',
      'data',
      'uploads',
      'var',
      'var/log',
    ]);
    const folder = globMatcher(declaredFolders([]));
    for (const created of ['cache', 'apps/web/cache', 'backend/tmp/pids', 'log']) expect(folder(created), created).toBe(true);
    for (const other of ['src', 'apps/web/public', 'backend/tmp/served']) expect(folder(other), other).toBe(false);
  });
});

// The app writing the bytecode of a module the verifier imports is a write to the verifier's input: no entry,
// built in (`**/__pycache__/**`) or declared, may take it for the app's data and put it back unseen.
describe('what a verifier reads is never the app’s data', () => {
  const globs = appWriteGlobs(['tests/**/*.txt'], verifierReadGlobs(['tests/checks.py', 'tests/odd[1].py', 'tests/notes.txt']));
  const matches = globMatcher(globs);
  it.each([
    ['tests/__pycache__/checks.cpython-311.pyc', false],
    ['tests/checks.pyc', false],
    ['tests/__pycache__/odd[1].cpython-311.pyc', false],
    ['tests/notes.txt', false],
    ['tests/__pycache__/other.cpython-311.pyc', true],
    ['app/__pycache__/views.cpython-311.pyc', true],
    ['tests/other.txt', true],
  ])('%s → app data: %s', (file, expected) => {
    expect(matches(file)).toBe(expected);
  });

  it('adds no folder the app may create', () => {
    expect(declaredFolders(globs)).toEqual(declaredFolders(appWriteGlobs(['tests/**/*.txt'])));
  });
});

describe('resetAppData', () => {
  it('puts declared paths back as the base has them: content, mode, symlinks; removes what the base lacks; leaves the rest', async () => {
    const root = tempRepo({ 'data/db.json': '{"hits":0}\n', 'data/run.sh': 'echo hi\n', 'page.html': 'base\n' });
    symlinkSync('db.json', path.join(root, 'data/current.json'));
    chmodSync(path.join(root, 'data/run.sh'), 0o755);
    gitSync(root, 'add', '-A');
    gitSync(root, 'commit', '-qm', 'link and mode');
    const base = gitSync(root, 'rev-parse', 'HEAD').trim();

    writeFileSync(path.join(root, 'data/db.json'), '{"hits":9,"extra":"<li>Buy milk</li>"}\n');
    chmodSync(path.join(root, 'data/run.sh'), 0o644);
    gitSync(root, 'rm', '-q', 'data/current.json');
    writeFileSync(path.join(root, 'data/current.json'), 'not a link\n');
    mkdirSync(path.join(root, 'data/uploads'));
    writeFileSync(path.join(root, 'data/uploads/a.png'), 'png');
    writeFileSync(path.join(root, 'page.html'), 'the agent’s work\n');

    const done = await resetAppData(root, base, ['data/**']);
    expect(done).toEqual({ restored: ['data/current.json', 'data/db.json', 'data/run.sh'], removed: ['data/uploads/a.png'] });
    expect(readFileSync(path.join(root, 'data/db.json'), 'utf8')).toBe('{"hits":0}\n');
    expect(lstatSync(path.join(root, 'data/run.sh')).mode & 0o111).not.toBe(0);
    expect(readlinkSync(path.join(root, 'data/current.json'))).toBe('db.json');
    expect(existsSync(path.join(root, 'data/uploads/a.png'))).toBe(false);
    // Not declared: the agent's change stays.
    expect(readFileSync(path.join(root, 'page.html'), 'utf8')).toBe('the agent’s work\n');
    // Already as the base has it: nothing to do.
    expect(await resetAppData(root, base, ['data/**'])).toEqual({ restored: [], removed: [] });
  });

  it('never goes through a symlinked folder: data -> elsewhere is not followed out of the worktree', async () => {
    const root = tempRepo({ 'data/db.json': '{"hits":0}\n', 'tmp/cache/keep.txt': 'base\n' });
    const base = gitSync(root, 'rev-parse', 'HEAD').trim();
    const outside = tempDir();
    writeFileSync(path.join(outside, 'db.json'), 'the user’s file\n');
    gitSync(root, 'rm', '-rq', 'data');
    symlinkSync(outside, path.join(root, 'data'));
    // A built-in Rails path (one glob per path, no braces) is still put back.
    writeFileSync(path.join(root, 'tmp/cache/keep.txt'), 'agent\n');
    const done = await resetAppData(root, base, appWriteGlobs(['data/db.json']));
    expect(done.restored).toEqual(['tmp/cache/keep.txt']);
    expect(readFileSync(path.join(outside, 'db.json'), 'utf8')).toBe('the user’s file\n');
    expect(readFileSync(path.join(root, 'tmp/cache/keep.txt'), 'utf8')).toBe('base\n');
  });

  it('writes the bytes itself: a filter the agent configured does not run', async () => {
    const root = tempRepo({ 'db.json': '{"hits":0}\n' });
    const base = gitSync(root, 'rev-parse', 'HEAD').trim();
    gitSync(root, 'config', 'filter.x.smudge', 'echo smudged');
    writeFileSync(path.join(root, '.git/info/attributes'), 'db.json filter=x\n');
    writeFileSync(path.join(root, 'db.json'), 'changed\n');
    await resetAppData(root, base, ['db.json']);
    expect(readFileSync(path.join(root, 'db.json'), 'utf8')).toBe('{"hits":0}\n');
  });
});

describe('app.writes in the config', () => {
  it.each([
    ['log/{a,b}.log', 'braces and extglobs cannot be declared'],
    ['log/@(a|b).log', 'braces and extglobs cannot be declared'],
    ['!data/db.json', 'a negated glob cannot be declared'],
    ['**', 'must name what the app writes'],
    ['.git/config', 'must name what the app writes'],
    ['../outside.json', 'must not contain'],
  ])('%s is refused (%s)', (glob, why) => {
    const parsed = AppConfigSchema.safeParse({ writes: [glob] });
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toContain(why);
  });

  it('plain globs are taken', () => {
    expect(AppConfigSchema.parse({ writes: ['data/db.json', 'log/**', 'uploads/*.png'] }).writes).toHaveLength(3);
  });
});
