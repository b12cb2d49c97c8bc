// `elenchos init` in existing repositories: what it detects, what it writes, and that it never overwrites.
// @module-tag slow
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONCURRENT_TIMEOUT } from '../helpers/leftovers.js';
import { BIN, runMain } from '../helpers/cli.js';
import { FIXTURES, checkoutFingerprint } from '../helpers/project.js';
import { gitSync, tempDir, tempRepo } from '../helpers/temp.js';
import { probeSandbox } from '../../src/core/sandbox-probe.js';

// Only the fake kane-cli is on PATH beside the system's tools: no claude, no codex.
const WITH_KANE = { PATH: `${path.join(FIXTURES, 'bin')}:/usr/bin:/bin` };
const NO_TOOLS = { PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin` };

const read = (root: string, file: string) => readFileSync(path.join(root, file), 'utf8');
const manifest = (scripts: Record<string, string>, devDependencies: Record<string, string> = {}) =>
  `${JSON.stringify({ name: 'my-app', version: '1.0.0', scripts, devDependencies }, null, 2)}\n`;

describe.concurrent('elenchos init', { timeout: CONCURRENT_TIMEOUT }, () => {
  it('scaffolds a Kane project from its scripts, and the scaffold passes elenchos check', async () => {
    const root = tempRepo({
      'package.json': manifest({ dev: 'vite', start: 'node server.js' }),
      'package-lock.json': '{}\n',
      '.gitignore': 'node_modules/\ndist',
    });
    const before = checkoutFingerprint(root);
    const result = await runMain(['init', '--yes'], root, WITH_KANE);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`verifier  kane (kane-cli is on PATH (${path.join(FIXTURES, 'bin/kane-cli')}))`);
    expect(result.stdout).toMatch(/wrote +elenchos\.config\.json/);
    expect(result.stdout).toMatch(/added to +\.gitignore/);
    // It says which sandbox "auto" gives on this machine (the probe a run uses), and how to get one where there is none.
    const probe = await probeSandbox();
    if (probe.holds) expect(result.stdout).toContain(`  sandbox   bwrap (${probe.why})`);
    else {
      expect(result.stdout).toContain(`  sandbox   none (agent.sandbox is "auto" and ${probe.why})`);
      expect(result.stdout).toContain(`  - ${probe.fix}: agent.sandbox "auto" then runs the agent, its app and setup in bubblewrap`);
    }
    const config = JSON.parse(read(root, 'elenchos.config.json'));
    expect(config).toEqual({
      $schema: './node_modules/elenchos/schemas/config.schema.json',
      // The default, written out: the agent's code runs sandboxed wherever bubblewrap holds.
      agent: { type: 'claude', sandbox: 'auto' },
      app: { command: 'npm run dev -- --port {port}', url: 'http://127.0.0.1:{port}/', readyTimeoutSeconds: 120 },
      setup: { command: 'npm ci', cache: { key: ['package-lock.json', 'package.json'], paths: ['node_modules'] } },
      verifier: { type: 'kane' },
      tasks: ['tasks/**/*.json'],
    });
    expect(JSON.parse(read(root, 'tasks/example.json'))).toMatchObject({
      $schema: '../node_modules/elenchos/schemas/task.schema.json',
      verification: { testFile: 'tests/example_test.md' },
    });
    expect(read(root, 'tests/example_test.md')).toMatch(/## Step 1 .*@verifies AC-001/);
    // The existing ignore rules are kept, the missing newline mended, the rule added once.
    expect(read(root, '.gitignore')).toBe('node_modules/\ndist\n.elenchos/\n');
    // Nothing else moved.
    const after = checkoutFingerprint(root);
    for (const [file, hash] of Object.entries(before)) if (file !== '.gitignore') expect(after[file], file).toBe(hash);
    const check = await runMain(['check', 'tasks/example.json'], root);
    expect(check.code, check.stdout).toBe(0);
    expect(check.stdout).toContain('AC-002  step 2');
  });

  it('a second init writes nothing and says what it skipped', async () => {
    const root = tempRepo({ 'package.json': manifest({ start: 'node server.js' }) });
    expect((await runMain(['init', '--yes'], root, NO_TOOLS)).code).toBe(0);
    const before = checkoutFingerprint(root);
    const again = await runMain(['init', '--json'], root, NO_TOOLS);
    expect(again.code).toBe(0);
    const report = JSON.parse(again.stdout);
    expect(report.files.map((f: any) => [f.path, f.action])).toEqual([
      ['elenchos.config.json', 'skip'],
      ['tasks/example.json', 'skip'],
      ['tests/example_test.md', 'skip'],
      ['.gitignore', 'skip'],
    ]);
    expect(report.choices).toMatchObject({
      verifier: 'kane',
      agent: 'claude',
      appCommand: 'npm run start -- --port {port}',
      setupCommand: 'npm install --no-package-lock',
    });
    expect(report.next.join('\n')).toContain('npm install -g @testmuai/kane-cli');
    expect(checkoutFingerprint(root)).toEqual(before);
  });

  it('never overwrites: a user config is kept byte for byte, and a dangling symlink is not followed', async () => {
    const outside = path.join(tempDir('elenchos-outside-'), 'written-through-symlink.json');
    const root = tempRepo({ 'elenchos.config.json': '{ "verifier": { "type": "command" } }\n' });
    symlinkSync(outside, path.join(root, '.gitignore'));
    const result = await runMain(['init', '--yes', '--json'], root, NO_TOOLS);
    expect(result.code, result.stderr).toBe(0);
    const files = Object.fromEntries(JSON.parse(result.stdout).files.map((f: any) => [f.path, f.action]));
    expect(files['elenchos.config.json']).toBe('skip');
    expect(read(root, 'elenchos.config.json')).toBe('{ "verifier": { "type": "command" } }\n');
    // .gitignore is a symlink to nothing: init must not create the file it points to.
    expect(files['.gitignore']).toBe('skip');
    expect(result.stdout).toContain('is a symlink; not written through');
    expect(existsSync(outside)).toBe(false);
    expect(readlinkSync(path.join(root, '.gitignore'))).toBe(outside);
  });

  it('picks Playwright when the project has it, and puts a tagged spec in its testDir', async () => {
    const root = tempRepo({
      'package.json': manifest({ dev: 'next dev' }, { '@playwright/test': '1.58.2' }),
      'pnpm-lock.yaml': 'lockfileVersion: 9\n',
      'playwright.config.ts': "import { defineConfig } from '@playwright/test';\nexport default defineConfig({ testDir: './e2e/' });\n",
    });
    const result = await runMain(['init', '--yes', '--json'], root, NO_TOOLS);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.choices).toMatchObject({
      verifier: 'playwright',
      verifierWhy: 'found playwright.config.ts',
      appCommand: 'pnpm run dev --port {port}',
      setupCommand: 'pnpm install --frozen-lockfile',
    });
    const spec = read(root, 'e2e/example.spec.ts');
    expect(spec).toContain("{ tag: '@AC-001' }");
    expect(spec).toContain("{ tag: '@AC-002' }");
    expect(JSON.parse(read(root, 'tasks/example.json')).verification.testFile).toBe('e2e/example.spec.ts');
    // check asks the project's Playwright which tests the spec has: installed, as `pnpm install` would.
    symlinkSync(fileURLToPath(new URL('../../node_modules', import.meta.url)), path.join(root, 'node_modules'));
    const check = await runMain(['check', 'tasks/example.json'], root);
    expect(check.code, check.stdout).toBe(0);
    expect(check.stdout).toContain('verifier playwright, test e2e/example.spec.ts, 2 step(s)');
  });

  it('--verifier, --agent and --app-command override what it detects; bad values are usage errors', async () => {
    const root = tempRepo({ 'README.md': '# no package.json here\n' });
    const result = await runMain(
      ['init', '--json', '--verifier', 'playwright', '--agent', 'codex', '--app-command', 'python3 -m http.server {port}'],
      root,
      NO_TOOLS,
    );
    expect(result.code, result.stderr).toBe(0);
    const config = JSON.parse(read(root, 'elenchos.config.json'));
    expect(config).toMatchObject({
      agent: { type: 'codex', sandbox: 'auto' },
      app: { command: 'python3 -m http.server {port}' },
      verifier: { type: 'playwright' },
    });
    expect(config.setup).toBeUndefined();
    expect(existsSync(path.join(root, 'tests/example.spec.ts'))).toBe(true);
    // The two newer agents are choices too; init says how to install the one that is missing.
    for (const [agent, install] of [
      ['gemini', 'npm install -g @google/gemini-cli'],
      ['opencode', 'npm install -g opencode-ai'],
    ]) {
      const other = tempRepo({ 'README.md': '# no package.json here\n' });
      const chosen = await runMain(['init', '--agent', agent!], other, NO_TOOLS);
      expect(chosen.code, chosen.stderr).toBe(0);
      expect(JSON.parse(read(other, 'elenchos.config.json')).agent).toEqual({ type: agent, sandbox: 'auto' });
      expect(chosen.stdout).toContain(install);
    }
    const bad = await runMain(['init', '--verifier', 'selenium'], tempRepo({ 'a.txt': 'a\n' }));
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain("argument 'selenium' is invalid");
  });

  it('without a start script it says to set app.command, and doctor names the same fix', async () => {
    const root = tempRepo({ 'index.html': '<h1>hi</h1>\n' });
    const result = await runMain(['init'], root, NO_TOOLS);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('app       not found: set app.command');
    expect(result.stdout).toContain('set app.command in elenchos.config.json');
    const doctor = await runMain(['doctor', '--json'], root, NO_TOOLS);
    expect(doctor.code).toBe(1);
    const app = JSON.parse(doctor.stdout).checks.find((c: any) => c.name === 'app');
    expect(app).toMatchObject({ status: 'fail', message: 'app.command is not set' });
    expect(app.fix).toContain('set app.command in elenchos.config.json');
    // The scaffold is not committed yet: a warning (exit code unchanged by it) naming the files.
    const committed = JSON.parse(doctor.stdout).checks.find((c: any) => c.name === 'committed');
    expect(committed).toMatchObject({ status: 'warn', message: 'not committed as they are: tasks/example.json, tests/example_test.md' });
  });

  // A real terminal (util-linux `script` gives the CLI a pty): init shows its plan and asks first.
  it.skipIf(!existsSync('/usr/bin/script'))('on a terminal it asks before writing: "n" writes nothing, Enter writes', () => {
    const root = tempRepo({ 'a.txt': 'a\n' });
    const inTerminal = (answer: string) =>
      spawnSync('/usr/bin/script', ['-qec', `${process.execPath} ${BIN} init`, '/dev/null'], {
        cwd: root,
        input: answer,
        encoding: 'utf8',
        env: { ...process.env, ...NO_TOOLS },
        timeout: 30_000,
      });
    const no = inTerminal('n\n');
    expect(no.status).toBe(0);
    expect(no.stdout).toContain('create    elenchos.config.json');
    expect(no.stdout).toContain('Write these files? [Y/n]');
    expect(no.stdout).toContain('nothing written');
    expect(readdirSync(root).sort()).toEqual(['.git', 'a.txt']);
    const yes = inTerminal('\n');
    expect(yes.status).toBe(0);
    expect(yes.stdout).toContain('wrote     elenchos.config.json');
    expect(existsSync(path.join(root, 'tests/example_test.md'))).toBe(true);
  });

  it('outside a git repository it still scaffolds, and says to git init first', async () => {
    const dir = tempDir('elenchos-plain-');
    const result = await runMain(['init', '--json'], dir, NO_TOOLS);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).next[0]).toBe(
      'this folder is not in a git repository: git init and commit your project (runs work on a worktree of HEAD)',
    );
    expect(existsSync(path.join(dir, 'elenchos.config.json'))).toBe(true);
  });

  // The example is a working test, not a placeholder: Playwright in a real Chromium verifies it against a real app.
  it('the Playwright scaffold is VERIFIED by elenchos verify against a real app', { timeout: 240_000 }, async () => {
    const root = tempRepo({
      'package.json': manifest({ start: 'node app.js' }, { '@playwright/test': '1.58.2' }),
      'app.js': readFileSync(path.join(FIXTURES, 'apps/tiny-app.js'), 'utf8'),
      'page.html': '<html><head><title>Tasks</title></head><body><h1>Tasks</h1></body></html>\n',
      '.gitignore': 'node_modules\n',
    });
    // This repository's @playwright/test, as the project's installed dependency.
    symlinkSync(fileURLToPath(new URL('../../node_modules', import.meta.url)), path.join(root, 'node_modules'));
    expect(
      (await runMain(['init', '--yes', '--agent', 'command', '--app-command', 'node app.js --port {port}'], root, NO_TOOLS)).code,
    ).toBe(0);
    // Dependencies are already there: no setup (a user's would install them in each worktree).
    const config = JSON.parse(read(root, 'elenchos.config.json'));
    delete config.setup;
    writeFileSync(path.join(root, 'elenchos.config.json'), JSON.stringify(config));
    gitSync(root, 'add', '-A');
    gitSync(root, 'commit', '-qm', 'elenchos');
    const result = spawnSync(process.execPath, [BIN, 'verify', 'tasks/example.json', '--json'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, ...NO_TOOLS },
      timeout: 220_000,
    });
    expect(result.status, result.stderr).toBe(0);
    const [run] = JSON.parse(result.stdout).runs;
    expect(run.attempts.at(-1).criteria.map((c: any) => [c.id, c.status])).toEqual([
      ['AC-001', 'PASS'],
      ['AC-002', 'PASS'],
    ]);
  });
});
