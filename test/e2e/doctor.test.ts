// `elenchos doctor` on real repositories: a real app started on HEAD in a temporary worktree, fake tools.
// @module-tag slow
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, type TestContext } from 'vitest';
import { runMain } from '../helpers/cli.js';
import { CONCURRENT_TIMEOUT, leftoversOf } from '../helpers/leftovers.js';
import { startCli } from '../helpers/live-cli.js';
import { checkoutFingerprint, makeProject } from '../helpers/project.js';
import { freePort } from '../../src/process/free-port.js';
import { gitSync, taskJson } from '../helpers/temp.js';

/**
 * The case's doctor, and what it checks when the case ends, whatever the outcome: the probe's app and
 * worktree are gone from every project it ran in. Per case, so that cases can run together.
 */
function doctorOf(ctx: TestContext) {
  const watch = leftoversOf(ctx, (root) => expect(gitSync(root, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1));
  const doctor = async (project: ReturnType<typeof makeProject>, args: string[] = [], env: NodeJS.ProcessEnv = {}) => {
    watch(project.root);
    const before = checkoutFingerprint(project.root);
    const result = await runMain(['doctor', ...args], project.root, { ...project.env, ...env });
    expect(checkoutFingerprint(project.root)).toEqual(before);
    // Lines are printed as each check ends, padded to a fixed width: two spaces after the name here.
    return { ...result, stdout: result.stdout.replace(/^([✓✗!]) (.+?) {2,}/gm, '$1 $2  ') };
  };
  return { doctor, watch };
}

const check = (stdout: string, name: string) => JSON.parse(stdout).checks.filter((c: any) => c.name === name);

describe.concurrent('elenchos doctor', { timeout: CONCURRENT_TIMEOUT }, () => {
  it('all well on a good project: exit 0, and the app really answered on HEAD', async (ctx) => {
    const { doctor } = doctorOf(ctx);
    const project = makeProject();
    const result = await doctor(project);
    expect(result.code, result.stdout).toBe(0);
    for (const name of ['node', 'git', 'config', 'task', 'verifier', 'kane login', 'agent', 'port', 'app'])
      expect(result.stdout).toMatch(new RegExp(`^✓ ${name} `, 'm'));
    expect(result.stdout).toMatch(
      /✓ app +`node app\.js --port \d+` answered at http:\/\/127\.0\.0\.1:\d+\/ in \d+ ms, then HTTP 200 to a page request \(HEAD [0-9a-f]{12}, fresh worktree\)/,
    );
    expect(result.stdout).toContain('kane login  logged in: fake-user (prod)');
    expect(result.stdout.trim().split('\n').at(-1)).toBe('all well');
    const json = await doctor(project, ['--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, root: project.root });
  });

  it('prints each line as its check ends: the first at once, the app probe announced before it starts', async (ctx) => {
    const { watch } = doctorOf(ctx);
    // An app that never gets ready: doctor is still in its probe when the test looks.
    const project = makeProject({
      config: { app: { command: `${JSON.stringify(process.execPath)} -e "setInterval(() => {}, 1000)"`, readyTimeoutSeconds: 600 } },
    });
    watch(project.root);
    const cli = startCli(['doctor'], project.root, project.env);
    await cli.waitFor('… app');
    const { stdout, stderr } = cli.output();
    expect(stdout).toMatch(/^✓ node +Node /);
    expect(stdout).toMatch(/^✓ task +tasks\/add-task\.json: /m);
    expect(stderr).toMatch(/^… app +starting `.*` on HEAD in a fresh worktree/m);
    // Nothing of the end yet: the lines came as the checks ended, not all at once after.
    expect(stdout).not.toMatch(/all well|problem\(s\)/);
    cli.child.kill('SIGINT');
    expect(await cli.exited).toBe(130);
  });

  it("each doctor run starts .elenchos/doctor/app.log and setup.log afresh: one run's lines, not every run's", async (ctx) => {
    const { doctor } = doctorOf(ctx);
    const project = makeProject({ config: { setup: { command: 'echo setting up' } } });
    const logs = path.join(project.root, '.elenchos/doctor');
    const count = (file: string, text: string) => readFileSync(path.join(logs, file), 'utf8').split(text).length - 1;
    for (let i = 0; i < 2; i++) expect((await doctor(project)).code).toBe(0);
    expect(count('app.log', 'tiny-app listening on')).toBe(1); // before: 2, piled up with nothing between them
    expect(count('setup.log', 'setting up')).toBe(1);
  });

  it('an app that ignores {port}: exit 1, its log tail, and the fix', async (ctx) => {
    const { doctor } = doctorOf(ctx);
    const fixed = await freePort();
    const project = makeProject({ config: { app: { command: `node app.js --port ${fixed}`, readyTimeoutSeconds: 3 } } });
    const result = await doctor(project);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /^✗ app +http:\/\/127\.0\.0\.1:\d+\/ did not become ready within app\.readyTimeoutSeconds \(3s; .*\); fix: app\.command has no \{port\}: make app\.command in elenchos\.config\.json listen on \{port\}/m,
    );
    expect(result.stdout).toContain(`    app log: tiny-app listening on ${fixed}`);
    expect(result.stdout).toContain('    whole log: .elenchos/doctor/app.log');
    expect(result.stdout.trim().split('\n').at(-1)).toBe('1 problem(s)');
  });

  it('an app that never gets ready, and one that exits at once: each with its log tail and fix', async (ctx) => {
    const { doctor } = doctorOf(ctx);
    const never = makeProject({
      config: { app: { command: 'node app.js --port {port}', readyTimeoutSeconds: 2, env: { TINY_APP_MODE: 'never-ready' } } },
    });
    const slow = await doctor(never, ['--json']);
    expect(slow.code).toBe(1);
    const [app] = check(slow.stdout, 'app');
    expect(app).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('did not become ready within app.readyTimeoutSeconds (2s'),
    });
    expect(app.fix).toContain('or raise app.readyTimeoutSeconds');
    expect(app.fix).not.toContain('has no {port}');
    expect(app.details).toContain('app log: tiny-app: warming up forever');

    const broken = makeProject({ config: { app: { command: 'node app.js --port {port}', env: { TINY_APP_MODE: 'exit-early' } } } });
    const exited = await doctor(broken);
    expect(exited.code).toBe(1);
    expect(exited.stdout).toMatch(
      /^✗ app +the app exited with code 3 before http:\/\/127\.0\.0\.1:\d+\/ answered; fix: fix app\.command in elenchos\.config\.json/m,
    );
    expect(exited.stdout).toContain('app log: tiny-app: cannot start: missing configuration');
  });

  it('a failing setup is named with its own tail, and the app is not started', async (ctx) => {
    const { doctor } = doctorOf(ctx);
    const project = makeProject({ config: { setup: { command: 'echo installing; echo "no lockfile" >&2; exit 7' } } });
    const result = await doctor(project, ['--json']);
    expect(result.code).toBe(1);
    expect(check(result.stdout, 'setup')).toEqual([
      expect.objectContaining({
        status: 'fail',
        message: expect.stringContaining('exited with code 7'),
        details: expect.arrayContaining(['setup log: no lockfile']),
      }),
    ]);
    expect(check(result.stdout, 'app')).toEqual([]);
  });

  it('a missing verifier, a logged-out Kane and a missing agent: one line each naming the fix', async (ctx) => {
    const { doctor } = doctorOf(ctx);
    const missing = makeProject({ config: { verifier: { type: 'kane', command: '/nonexistent/kane-cli' } } });
    const result = await doctor(missing, ['--no-app']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      '✗ verifier  verifier executable "/nonexistent/kane-cli" not found (verifier.type kane); fix: install it with `npm install -g @testmuai/kane-cli` (or set verifier.command)',
    );

    const loggedOut = makeProject({ scenario: 'no-credentials', config: { agent: { type: 'claude', command: 'no-such-claude' } } });
    const out = await doctor(loggedOut, ['--no-app']);
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(
      /^✗ kane login +kane-cli is not logged in \(whoami: exit code 2: error: Not logged in\..*\); fix: run `kane-cli login`, or set LT_USERNAME and LT_ACCESS_KEY$/m,
    );
    expect(out.stdout).toMatch(
      /^✗ agent +agent executable "no-such-claude" not found \(agent\.type claude\); fix: install it or set agent\.command/m,
    );
    // A shell line in agent.command (an executable, unlike app.command): the fix says how to split it.
    const shellLine = makeProject({ config: { agent: { type: 'command', command: 'sh agent/fix.sh --fast' } } });
    expect((await doctor(shellLine, ['--no-app'])).stdout).toMatch(
      /^✗ agent +agent executable "sh agent\/fix\.sh --fast" not found \(agent\.type command\); fix: agent\.command is one executable and its arguments go in agent\.args: set "command": "sh", "args": \["agent\/fix\.sh", "--fast"\]/m,
    );
    // Basic auth from the environment is a login too (CI), without asking kane-cli.
    const withKeys = await doctor(loggedOut, ['--no-app', '--json'], { LT_USERNAME: 'u', LT_ACCESS_KEY: 'k' });
    expect(check(withKeys.stdout, 'kane login')).toEqual([
      expect.objectContaining({ status: 'ok', message: 'credentials from LT_USERNAME and LT_ACCESS_KEY' }),
    ]);
    expect(withKeys.stdout).not.toContain('"k"');
  });

  it('an invalid contract and a fixed port in use fail; an invalid config stops before the rest', async (ctx) => {
    const { doctor } = doctorOf(ctx);
    const port = await freePort();
    const project = makeProject({
      config: { app: { command: 'node app.js --port {port}', url: `http://127.0.0.1:${port}/`, port } },
      files: { 'tasks/bad.json': '{ "id": "Bad Id" }\n' },
    });
    // Hold the port the config names.
    const { createServer } = await import('node:net');
    const server = createServer().listen(port, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const result = await doctor(project, ['--no-app', '--json']);
      expect(result.code).toBe(1);
      expect(check(result.stdout, 'task').map((c: any) => c.status)).toContain('fail');
      expect(check(result.stdout, 'task').find((c: any) => c.status === 'fail').message).toContain('tasks/bad.json');
      expect(check(result.stdout, 'port')).toEqual([expect.objectContaining({ status: 'fail', message: `app.port ${port} is in use` })]);
    } finally {
      server.close();
    }
    const invalid = makeProject({ config: { maxRepairAttempts: 'two' } });
    const bad = await doctor(invalid, ['--json']);
    expect(bad.code).toBe(1);
    const checks = JSON.parse(bad.stdout).checks;
    expect(checks.at(-1)).toMatchObject({ name: 'config', status: 'fail', message: expect.stringContaining('maxRepairAttempts') });
    expect(checks.map((c: any) => c.name)).not.toContain('app');
    expect(path.isAbsolute(JSON.parse(bad.stdout).root)).toBe(true);
  });

  it('a secret the app prints never reaches the terminal or the kept log', async (ctx) => {
    const { doctor } = doctorOf(ctx);
    const secret = 'hunter2-very-secret-value';
    const project = makeProject({ config: { redact: ['DB_PASSWORD'], app: { command: `echo "connecting with ${secret}"; exit 4` } } });
    const result = await doctor(project, [], { DB_PASSWORD: secret });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('app log: connecting with [REDACTED]');
    expect(result.stdout).not.toContain(secret);
    expect(readFileSync(path.join(project.root, '.elenchos/doctor/app.log'), 'utf8')).not.toContain(secret);
  });

  it('the Playwright verifier: found in the project and answering --version, or the fix to add it', async (ctx) => {
    const { doctor, watch } = doctorOf(ctx);
    const spec =
      "import { test } from '@playwright/test';\ntest('form', { tag: '@AC-001' }, async () => {});\ntest('list', { tag: '@AC-002' }, async () => {});\n";
    const files = {
      'tasks/add-task.json': taskJson({ verification: { testFile: 'tests/add-task.spec.ts' } }),
      'tests/add-task.spec.ts': spec,
    };
    const config = { verifier: { type: 'playwright', browserPath: '/nonexistent/chromium' } };
    const without = makeProject({ config, files });
    const missing = await doctor(without, ['--no-app']);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toMatch(
      /^✗ verifier +playwright does not run \(.*\); fix: add it to the project: npm install -D @playwright\/test \(or set verifier\.command\)$/m,
    );
    expect(missing.stdout).toContain('✗ chromium  /nonexistent/chromium does not exist; fix: fix verifier.browserPath');
    // The same project with this repository's @playwright/test beside it, as an installed dependency.
    const withIt = makeProject({ config: { verifier: { type: 'playwright' } }, files });
    symlinkSync(fileURLToPath(new URL('../../node_modules', import.meta.url)), path.join(withIt.root, 'node_modules'));
    // (not through doctor(): the fingerprint cannot walk a symlinked node_modules)
    watch(withIt.root);
    const found = await runMain(['doctor', '--no-app', '--json'], withIt.root, withIt.env);
    expect(check(found.stdout, 'verifier')).toEqual([
      expect.objectContaining({ status: 'ok', message: expect.stringMatching(/^playwright: Version \d+\.\d+/) }),
    ]);
    expect(check(found.stdout, 'playwright')).toEqual([
      expect.objectContaining({ status: 'ok', message: '@playwright/test 1.58.2 (supported: >=1.58.0, tested up to 1.65.2)' }),
    ]);
    expect(check(found.stdout, 'task')).toEqual([
      expect.objectContaining({
        status: 'ok',
        message: 'tasks/add-task.json: 2 criteria, each verified by a step of tests/add-task.spec.ts',
      }),
    ]);
  });

  // An app that writes what WRITER_AT_START lists while it starts (and removes it again, as Vite does
  // with its bundled config) and what WRITER_ON_REQUEST lists when it answers its first request.
  const WRITER = `import http from 'node:http';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
const list = (name) => (process.env[name] ?? '').split(',').filter(Boolean);
const write = (file) => { mkdirSync(path.dirname(file), { recursive: true }); writeFileSync(file, '{}'); };
for (const file of list('WRITER_AT_START')) { write(file); rmSync(file); }
let first = true;
http.createServer((request, response) => {
  if (first) { first = false; for (const file of list('WRITER_ON_REQUEST')) write(file); }
  response.end('ok');
}).listen(Number(process.argv[3]), '127.0.0.1');
`;
  const writer = (env: Record<string, string>, writes: string[] = [], files: Record<string, string> = {}) =>
    makeProject({
      config: { app: { command: 'node writer.mjs --port {port}', readyTimeoutSeconds: 10, env, writes } },
      files: { 'writer.mjs': WRITER, ...files },
    });

  it('an app that writes its data while it starts and answers: each path with the app.writes line to add', async (ctx) => {
    const { doctor } = doctorOf(ctx);
    const project = writer({ WRITER_ON_REQUEST: 'data/db.json,var/log/today.log,log/app/today.log' }, [], { 'data/seed.json': '{}\n' });
    const result = await doctor(project);
    // A warning: the app works; the first run would end UNSTABLE_WORKSPACE until it is declared.
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toMatch(
      /^✓ app +`node writer\.mjs --port \d+` answered at .* in \d+ ms, then HTTP 200 to a page request \(HEAD/m,
    );
    expect(result.stdout).toContain(
      '! app writes  the app wrote data/db.json while it started and answered a request: each run would end UNSTABLE_WORKSPACE; fix: add "data/db.json" to app.writes in elenchos.config.json, or to .gitignore if it is not meant to be committed',
    );
    // A new folder: all of it, since what it holds may change names (a log that rotates).
    expect(result.stdout).toContain(
      '! app writes  the app created the folder var/ (holding var/log/today.log) while it started and answered a request: each run would end UNSTABLE_WORKSPACE; fix: add "var/**" to app.writes',
    );
    // Inside `log/`, which Rails may create (the built-in list): only the new subfolder, not each file again.
    expect(result.stdout).toContain('! app writes  the app created the folder log/app/ (holding log/app/today.log) while');
    expect(result.stdout.match(/^! app writes/gm)).toHaveLength(3);
    expect(result.stdout).toContain('    in elenchos.config.json, under "app": "writes": ["data/db.json","log/app/**","var/**"]');
    expect(result.stdout.trim().split('\n').at(-1)).toBe('all well');

    // Declared as doctor says: nothing left to report.
    const config = JSON.parse(readFileSync(path.join(project.root, 'elenchos.config.json'), 'utf8'));
    config.app.writes = ['data/db.json', 'log/app/**', 'var/**'];
    writeFileSync(path.join(project.root, 'elenchos.config.json'), `${JSON.stringify(config, null, 2)}\n`);
    gitSync(project.root, 'commit', '-qam', 'declare the app data');
    expect(check((await doctor(project, ['--json'])).stdout, 'app writes')).toEqual([
      expect.objectContaining({ status: 'ok', message: expect.stringContaining('the app wrote nothing') }),
    ]);
  });

  it("a dev server's known writes (Vite's timestamped config, written and removed) are no finding", async (ctx) => {
    const { doctor } = doctorOf(ctx);
    const project = writer({ WRITER_AT_START: 'vite.config.js.timestamp-1-abc.mjs' }, [], { 'vite.config.js': 'export default {};\n' });
    const result = await doctor(project, ['--json']);
    expect(result.code, result.stdout).toBe(0);
    expect(check(result.stdout, 'app writes')).toEqual([expect.objectContaining({ status: 'ok' })]);
    // Not so for an undeclared one: written and gone again is still a write, and doctor says so.
    const tmp = await doctor(writer({ WRITER_AT_START: 'cache.tmp' }), ['--json']);
    expect(check(tmp.stdout, 'app writes')).toEqual([
      expect.objectContaining({
        status: 'warn',
        message: expect.stringContaining('wrote cache.tmp'),
        fix: expect.stringContaining('and removed it again'),
      }),
    ]);
  });

  it('an app that rewrites a file the run locks (a variables file Kane reads): commit what it writes, not an app.writes line', async (ctx) => {
    const { doctor } = doctorOf(ctx);
    const project = writer({ WRITER_ON_REQUEST: '.testmuai/variables/app.json' }, [], {
      '.testmuai/variables/app.json': '{"a":{"value":"1"}}\n',
    });
    const found = check((await doctor(project, ['--json'])).stdout, 'app writes');
    expect(found).toEqual([
      expect.objectContaining({
        status: 'warn',
        message: expect.stringMatching(/^the app rewrote \.testmuai\/variables\/app\.json while it started, .*CONTRACT_CHANGED$/),
        fix: expect.stringContaining('commit .testmuai/variables/app.json as it leaves it'),
        details: [],
      }),
    ]);
    expect(found[0].fix).toContain('app.writes cannot cover a file the run locks');
  });

  it('attack: a file beside the declared one, in a folder the app may create, is still reported', async (ctx) => {
    const { doctor } = doctorOf(ctx);
    const project = writer({ WRITER_ON_REQUEST: 'data/db.json,data/other.json' }, ['data/db.json']);
    const found = check((await doctor(project, ['--json'])).stdout, 'app writes');
    expect(found.map((c: any) => c.message)).toEqual([expect.stringContaining('the app wrote data/other.json while it started')]);
    expect(found[0].fix).toContain('add "data/other.json" to app.writes');
    expect(found[0].details).toEqual(['in elenchos.config.json, under "app": "writes": ["data/db.json","data/other.json"]']);
  });

  it('a dependency on a path outside the repository fails where runs install; inside the repository or absolute is fine', async (ctx) => {
    const { doctor } = doctorOf(ctx);
    const manifest = (deps: Record<string, string>) => `${JSON.stringify({ name: 'my-app', devDependencies: deps }, null, 2)}\n`;
    const outside = makeProject({ config: { setup: { command: 'true' } }, files: { 'package.json': manifest({ x: 'file:../x.tgz' }) } });
    const result = await doctor(outside, ['--no-app']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      '✗ dependencies  package.json devDependencies.x is "file:../x.tgz", a path outside the repository: a run\'s worktree (.elenchos/workspaces/<run>/) and a CI checkout resolve it elsewhere, so their install fails; fix: copy it into the repository (e.g. vendor/x.tgz), commit it and depend on "file:./vendor/x.tgz"; ' +
        `or, on this machine only, on its absolute path: npm pkg set "devDependencies.x=file:${path.join(path.dirname(outside.root), 'x.tgz')}"`,
    );
    // Without setup.command no run installs, but CI does: a warning. link: and a bare ../ are the same.
    const noSetup = makeProject({
      files: { 'package.json': `${JSON.stringify({ dependencies: { a: 'link:../a' }, optionalDependencies: { b: '../../b' } })}\n` },
    });
    const warned = await doctor(noSetup, ['--no-app', '--json']);
    expect(warned.code).toBe(0);
    expect(check(warned.stdout, 'dependencies').map((c: any) => [c.status, c.message.split(',')[0]])).toEqual([
      ['warn', 'package.json dependencies.a is "link:../a"'],
      ['warn', 'package.json optionalDependencies.b is "../../b"'],
    ]);
    // A folder: npm links it and its lockfile entry stays relative, so an absolute path is no fix.
    expect(check(warned.stdout, 'dependencies')[0].fix).toMatch(
      /^pack it into the repository: mkdir -p vendor && \(cd \S+\/a && npm pack --pack-destination \S+\/vendor\), commit the tarball and depend on "file:\.\/vendor\/<its file name>"/,
    );
    const fine = makeProject({
      config: { setup: { command: 'true' } },
      files: {
        'package.json': manifest({
          v: 'file:./vendor/x.tgz',
          abs: `file:${path.join(outside.root, '..', 'x.tgz')}`,
          w: 'file:vendor/../vendor/y',
          r: '^1.2.3',
          g: 'git+https://h/o/r.git',
        }),
      },
    });
    const ok = await doctor(fine, ['--no-app', '--json']);
    expect(ok.code, ok.stdout).toBe(0);
    expect(check(ok.stdout, 'dependencies')).toEqual([]);
    // A path that only looks inside: file:./../x climbs out all the same.
    const sneaky = makeProject({
      config: { setup: { command: 'true' } },
      files: { 'package.json': manifest({ s: 'file:./vendor/../../x' }) },
    });
    expect(check((await doctor(sneaky, ['--no-app', '--json'])).stdout, 'dependencies')).toEqual([
      expect.objectContaining({ status: 'fail' }),
    ]);
  });

  it("doctor runs run's preflight: all well, then verify starts; a verifier input run would refuse is doctor's ✗ too", async (ctx) => {
    const { doctor } = doctorOf(ctx);
    const project = makeProject();
    const well = await doctor(project, ['--no-app']);
    expect(well.code, well.stdout).toBe(0);
    expect(well.stdout).toMatch(/^✓ preflight +tasks\/add-task\.json: run and verify start/m);
    const verified = await runMain(['verify', 'tasks/add-task.json'], project.root, project.env);
    // Not refused (exit 3): the verifier looked (the page lacks the feature, so NOT_VERIFIED is fine here).
    expect(verified.stdout + verified.stderr).not.toContain('REFUSED');
    expect(verified.code, verified.stdout).not.toBe(3);
    expect(verified.stdout).toContain('attempt 1 →');
    // The warm worktree verify keeps for the next run is not doctor's: removed for the check after each test.
    for (const line of gitSync(project.root, 'worktree', 'list', '--porcelain')
      .split('\n')
      .filter((l) => l.startsWith('worktree '))
      .slice(1))
      gitSync(project.root, 'worktree', 'remove', '--force', line.slice('worktree '.length));

    // A git-ignored file the verifier reads: doctor used to say all well, and run then refused.
    const ignored = makeProject({
      config: { verifier: { inputs: ['fixtures/data.json'] } },
      files: { '.gitignore': '.elenchos/\nfixtures/\n', 'fixtures/data.json': '{}\n' },
    });
    const caught = await doctor(ignored, ['--no-app']);
    expect(caught.code, caught.stdout).toBe(1);
    expect(caught.stdout).toMatch(
      /^✗ preflight +tasks\/add-task\.json: fixtures\/data\.json: the verifier reads it but it is not committed, so the worktree would not have it; fix: commit it, or list it in setup\.copy if it must stay git-ignored$/m,
    );
    const refused = await runMain(['run', 'tasks/add-task.json'], ignored.root, ignored.env);
    expect(refused.code).toBe(3);
    expect(refused.stdout + refused.stderr).toContain('fixtures/data.json: the verifier reads it but it is not committed');
  });
});
