// Installable: the packed tarball, installed offline into a fresh project, gives a working `npx elenchos`.
// @module-tag slow
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { CLEAR_SPEC, CLEAR_TASK } from '../helpers/playwright-attack.js';
import { FAKE_AGENT, FAKE_KANE, FIXTURES, TEST_MD, onlyRun, processesInside } from '../helpers/project.js';
import { npm, npxElenchos, packElenchos, writeInstallableProject, type Packed } from '../helpers/packed.js';
import { gitSync, taskJson, tempDir, tempRepo, writeFiles } from '../helpers/temp.js';

let packed: Packed;
/** A project with the tarball installed, once: each case works in a copy of it. */
let installed: string;
beforeAll(() => {
  packed = packElenchos(tempDir('elenchos-pack-'));
  installed = tempDir('elenchos-installed-');
  writeInstallableProject(installed, packed.tarball);
  const install = npm(['ci', '--offline'], installed);
  expect(install.status, `npm ci --offline failed (is the npm cache filled by npm ci in this checkout?)\n${install.stderr}`).toBe(0);
}, 300_000);
const projects: string[] = [];
// The install and its copies (each with the runs' worktrees, and their own installs): tens of thousands of
// files, more than the temp folders' common clean-up can remove within a hook's minute on a busy machine.
afterAll(() => {
  for (const dir of [installed, ...projects]) if (dir) rmSync(dir, { recursive: true, force: true });
}, 300_000);

/** A fresh project with the tarball installed (a copy of the one install) and committed (node_modules ignored), like a user's. */
function installedProject(files: Record<string, string>): string {
  const root = path.join(tempDir('elenchos-user-'), 'my-app');
  projects.push(root);
  // Links (node_modules/.bin) and modes as npm left them; the files hard-linked, not copied (about 10,000
  // of them): nothing writes into node_modules, and removing the copies afterwards is as quick.
  execFileSync('cp', ['-a', '--link', installed, root]);
  writeFiles(root, { '.gitignore': 'node_modules/\n', ...files });
  gitSync(root, 'init', '-q', '-b', 'main');
  gitSync(root, 'add', '-A');
  gitSync(root, 'commit', '-q', '-m', 'my app');
  return root;
}

function jsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.js'))
    .map((e) => path.join(e.parentPath, e.name));
}

/**
 * What compiled code imports: tsc puts the static imports first (a file's text after them, such as a
 * template that contains an import line, is not one), and dynamic ones are `await import('…')`.
 */
function importedModules(code: string): string[] {
  const specs: string[] = [];
  for (const line of code.split('\n')) {
    if (line.trim() === '' || line.startsWith('//') || line.startsWith('#!')) continue;
    const match = /^(?:import|export) .*from '([^']+)';$|^import '([^']+)';$/.exec(line);
    if (!match) break;
    specs.push((match[1] ?? match[2])!);
  }
  for (const [, spec] of code.matchAll(/await import\('([^']+)'\)/g)) specs.push(spec!);
  return specs;
}

describe.concurrent('npm pack → install into another project', { timeout: 600_000 }, () => {
  it('the tarball holds the shim, the built CLI and the schemas, and no sources or tests', () => {
    for (const file of [
      'bin/elenchos.js',
      'dist/cli.js',
      'dist/index.js',
      'dist/index.d.ts',
      'schemas/config.schema.json',
      'schemas/task.schema.json',
      'package.json',
      'README.md',
    ]) {
      expect(packed.files, file).toContain(file);
    }
    expect(packed.files.filter((f) => /^(src|test|bench|demo)\//.test(f))).toEqual([]);
  });

  it('npx elenchos works with only the runtime dependencies: init → doctor → a real run that repairs to VERIFIED → apply --commit → verify', async () => {
    const root = installedProject({
      'app.js': readFileSync(path.join(FIXTURES, 'apps/tiny-app.js'), 'utf8'),
      'page.html': '<h1>Tasks</h1>\n',
      'tasks/add-task.json': taskJson(),
      'tests/add-task_test.md': TEST_MD,
    });
    const installed = path.join(root, 'node_modules/elenchos');
    // Nothing dev-only came along, and the built code imports only what the package declares.
    // (typescript is a runtime dependency: the test lock reads specs with its parser.)
    expect(existsSync(path.join(root, 'node_modules/eslint'))).toBe(false);
    expect(existsSync(path.join(root, 'node_modules/vitest'))).toBe(false);
    const declared = Object.keys(JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')).dependencies);
    const imported = new Set<string>();
    for (const file of jsFiles(path.join(installed, 'dist'))) {
      for (const spec of importedModules(readFileSync(file, 'utf8'))) {
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
        if (!spec.startsWith('.') && !spec.startsWith('node:') && !builtinModules.includes(name)) imported.add(name);
      }
    }
    expect([...imported]).toEqual(expect.arrayContaining(['commander', 'zod', 'fast-glob', 'tar', '@modelcontextprotocol/sdk']));
    expect([...imported].filter((name) => !declared.includes(name))).toEqual([]);

    const version = await npxElenchos(['--version'], root);
    expect(version.status, version.stderr).toBe(0);
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')).version);

    // init, as a user would, then the two lines a user edits: which agent, and (here) the fake Kane.
    const init = await npxElenchos(['init', '--agent', 'command', '--app-command', 'node app.js --port {port}'], root);
    expect(init.status, init.stderr).toBe(0);
    expect(init.stdout).toContain('wrote     elenchos.config.json');
    const config = JSON.parse(readFileSync(path.join(root, 'elenchos.config.json'), 'utf8'));
    expect(config).toMatchObject({ $schema: './node_modules/elenchos/schemas/config.schema.json', setup: { command: 'npm ci' } });
    // The $schema it names exists in the install.
    expect(existsSync(path.join(root, config.$schema))).toBe(true);
    // The fake agent lives in this checkout, which may be under /tmp (the sandbox's own /tmp would hide it): run as written, unsandboxed.
    config.agent = {
      type: 'command',
      command: process.execPath,
      args: [FAKE_AGENT, 'buggy-then-fix'],
      timeoutSeconds: 60,
      sandbox: 'none',
    };
    config.verifier = { type: 'kane', command: FAKE_KANE, timeoutSeconds: 60, env: { FAKE_KANE_SCENARIO: 'check-page' } };
    writeFiles(root, { 'elenchos.config.json': `${JSON.stringify(config, null, 2)}\n` });
    gitSync(root, 'add', '-A');
    gitSync(root, 'commit', '-q', '-m', 'elenchos');

    const env = { HOME: tempDir('elenchos-home-') };
    const doctor = await npxElenchos(['doctor'], root, env);
    expect(doctor.status, doctor.stdout).toBe(0);
    expect(doctor.stdout).toMatch(/✓ task +tasks\/example\.json/);
    expect(doctor.stdout).toMatch(/✓ app +`node app\.js --port \d+` answered/);

    const run = await npxElenchos(['run', 'tasks/add-task.json'], root, env);
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    const { record } = onlyRun(root);
    expect(record).toMatchObject({ state: 'VERIFIED', reason: null });
    expect(record.attempts.map((a: any) => a.status)).toEqual(['FAIL', 'PASS']);
    expect(gitSync(root, 'status', '--porcelain')).toBe('');

    // Take the verified change home, committed with its trailers, and CI's verify agrees on the new HEAD.
    const who = {
      ...env,
      GIT_AUTHOR_NAME: 'Ada',
      GIT_AUTHOR_EMAIL: 'ada@example.com',
      GIT_COMMITTER_NAME: 'Ada',
      GIT_COMMITTER_EMAIL: 'ada@example.com',
    };
    const apply = await npxElenchos(['apply', 'latest', '--commit'], root, who);
    expect(apply.status, `${apply.stdout}\n${apply.stderr}`).toBe(0);
    expect(gitSync(root, 'log', '-1', '--format=%B')).toContain(`Elenchos-Run: ${record.runId}`);
    expect(readFileSync(path.join(root, 'page.html'), 'utf8')).toContain('Buy milk');
    const verify = await npxElenchos(['verify', 'tasks/add-task.json'], root, env);
    expect(verify.status, `${verify.stdout}\n${verify.stderr}`).toBe(0);
    expect(verify.stdout).toContain('1/1 VERIFIED');
    expect(processesInside(root)).toEqual([]);
  });

  it.runIf(existsSync(process.env.ELENCHOS_BROWSER_PATH ?? '/usr/bin/chromium'))(
    "a Playwright verify loads the progress reporter from the installed package's dist/, with no dev dependency of Elenchos",
    async () => {
      const root = installedProject({
        'app.js': readFileSync(path.join(FIXTURES, 'apps/tiny-app.js'), 'utf8'),
        'page.html': '<h1>Tasks</h1>\n<ul><li>Buy milk</li></ul>\n',
        'tasks/clear-list.json': CLEAR_TASK,
        'tests/clear-list.spec.ts': CLEAR_SPEC,
        'elenchos.config.json': `${JSON.stringify({
          app: { command: 'node app.js --port {port}', readyTimeoutSeconds: 20 },
          verifier: { type: 'playwright', timeoutSeconds: 120, args: ['--retries=0', '--timeout=10000'] },
        })}\n`,
      });
      // The user's own @playwright/test (this checkout's copy; elenchos brings none).
      const modules = path.join(path.dirname(path.dirname(BIN)), 'node_modules');
      for (const name of ['@playwright/test', 'playwright', 'playwright-core', '.bin/playwright']) {
        mkdirSync(path.dirname(path.join(root, 'node_modules', name)), { recursive: true });
        symlinkSync(path.join(modules, name), path.join(root, 'node_modules', name));
      }
      const verify = await npxElenchos(['verify', 'tasks/clear-list.json'], root, { HOME: tempDir('elenchos-home-') });
      expect(verify.status, `${verify.stdout}\n${verify.stderr}`).toBe(1);
      // Progress lines came from the reporter: a missing one would have ended Playwright before any test.
      expect(verify.stdout).toMatch(/step 2 clears the list @AC-002/);
      const { dir, record } = onlyRun(root);
      expect(record.attempts[0].criteria.map((c: { id: string; status: string }) => `${c.id} ${c.status}`)).toEqual([
        'AC-001 PASS',
        'AC-002 FAIL',
      ]);
      const shim = readdirSync(dir, { recursive: true, encoding: 'utf8' }).find((f) => f.endsWith('progress-reporter.mjs'));
      expect(readFileSync(path.join(dir, shim!), 'utf8')).toContain(
        `${path.join(root, 'node_modules/elenchos/dist/verifiers/playwright/reporter/progress-reporter.js')}"`,
      );
      expect(processesInside(root)).toEqual([]);
    },
  );

  it('a copy that was never built says so in one line, not an ERR_MODULE_NOT_FOUND stack', () => {
    const copy = tempDir('elenchos-unbuilt-');
    mkdirSync(path.join(copy, 'bin'));
    for (const file of ['elenchos.js', 'package.json']) copyFileSync(path.join(path.dirname(BIN), file), path.join(copy, 'bin', file));
    writeFiles(copy, { 'package.json': '{ "type": "module", "version": "0.0.0" }\n' });
    const result = spawnSync(process.execPath, [path.join(copy, 'bin/elenchos.js'), '--version'], { encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringContaining('dist/cli.js is missing: this copy was never built; run `npm run build` in'),
    ]);
    expect(result.stderr).not.toContain('ERR_MODULE_NOT_FOUND');
    // Built, but installed without its dependencies. The bundle holds what help needs, so help works; a
    // command that needs a package the bundle leaves outside names it, in one line.
    cpSync(path.join(path.dirname(path.dirname(BIN)), 'dist'), path.join(copy, 'dist'), { recursive: true });
    const help = spawnSync(process.execPath, [path.join(copy, 'bin/elenchos.js'), '--help'], { encoding: 'utf8' });
    expect(help.stderr).toBe('');
    expect(help.status).toBe(0);
    const repo = tempRepo({ 'elenchos.config.json': '{ "tasks": ["tasks/*.json"] }\n', 'tasks/.keep': '' });
    const globbed = spawnSync(process.execPath, [path.join(copy, 'bin/elenchos.js'), 'check'], { cwd: repo, encoding: 'utf8' });
    expect(globbed.status).toBe(2);
    expect(globbed.stderr).toMatch(
      /^elenchos: Cannot find module 'fast-glob'; reinstall elenchos with its dependencies \(npm install\)\n$/,
    );
    // Without the bundle the shim loads the compiled modules, and the first package missing stops it there.
    rmSync(path.join(copy, 'dist/cli.cjs'));
    const bare = spawnSync(process.execPath, [path.join(copy, 'bin/elenchos.js'), '--help'], { encoding: 'utf8' });
    expect(bare.status).toBe(2);
    expect(bare.stderr).toMatch(
      /^elenchos: Cannot find package '[^']+' imported from .*dist\/cli\.js; reinstall elenchos with its dependencies \(npm install\)\n$/,
    );
  });
});
