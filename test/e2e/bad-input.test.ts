// Bad input through the real CLI: `check`, `run` and `verify` each exit 3 with one line naming the file,
// no stack trace, no hang, no run folder left behind. Each case failed on the build before this test.
// @module-tag slow
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONCURRENT_TIMEOUT } from '../helpers/leftovers.js';
import { runMain, spawnCli } from '../helpers/cli.js';
import { makeProject } from '../helpers/project.js';
import { gitSync, taskJson } from '../helpers/temp.js';

const COMMANDS = [['check'], ['run'], ['verify']] as const;

/** Runs `command task` (in-process, or as `cli` runs it) and returns the CLI result with how long it took. */
async function timed(args: string[], root: string, env: NodeJS.ProcessEnv, cli = runMain) {
  const started = Date.now();
  const result = await cli(args, root, env);
  return { ...result, ms: Date.now() - started };
}

function expectRefused(result: Awaited<ReturnType<typeof timed>>, file: string, pattern: RegExp): void {
  const output = result.stdout + result.stderr;
  expect(result.code, output).toBe(3);
  expect(output).not.toMatch(/\n\s+at |unexpected error|SyntaxError|RangeError|TypeError/);
  expect(output).toContain(file);
  expect(output).toMatch(pattern);
}

function runsOf(root: string): string[] {
  const dir = path.join(root, '.elenchos/runs');
  return existsSync(dir) ? readdirSync(dir) : [];
}

function commit(root: string): void {
  gitSync(root, 'add', '-A');
  gitSync(root, 'commit', '-qm', 'bad input');
}

describe.concurrent('bad task and config files', { timeout: CONCURRENT_TIMEOUT }, () => {
  it('runs a task file that starts with a UTF-8 BOM (check already accepted it)', async () => {
    const p = makeProject();
    writeFileSync(path.join(p.root, 'tasks/add-task.json'), `\uFEFF${taskJson()}`);
    commit(p.root);
    expect((await runMain(['check', 'tasks/add-task.json'], p.root, p.env)).code).toBe(0);
    const run = await runMain(['run', 'tasks/add-task.json'], p.root, p.env);
    expect(run.stderr).not.toMatch(/SyntaxError|unexpected error/);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const listed = await runMain(['runs'], p.root, p.env);
    expect(listed.stdout).not.toContain('UNREADABLE');
  }, 120_000);

  it('refuses a config nested 10,000 levels deep in one line (was a RangeError stack)', async () => {
    const p = makeProject();
    writeFileSync(path.join(p.root, 'elenchos.config.json'), `{"agent": {"args": ${'['.repeat(10_000)}${']'.repeat(10_000)}}}`);
    commit(p.root);
    for (const [command] of COMMANDS) {
      const result = await timed([command, 'tasks/add-task.json'], p.root, p.env);
      expectRefused(result, 'elenchos.config.json:1:', /nested deeper than 64 levels/);
    }
    expect(runsOf(p.root)).toEqual([]);
  }, 120_000);

  it('refuses duplicate keys (last one winning would let a reviewer read one testFile and run another)', async () => {
    const p = makeProject();
    const task = taskJson().replace('"verification": {', '"verification": {\n    "testFile": "../../etc/passwd_test.md",');
    writeFileSync(path.join(p.root, 'tasks/add-task.json'), task);
    commit(p.root);
    for (const [command] of COMMANDS) {
      expectRefused(await timed([command, 'tasks/add-task.json'], p.root, p.env), 'tasks/add-task.json:', /duplicate key "testFile"/);
    }
    expect(runsOf(p.root)).toEqual([]);
  }, 120_000);

  it('refuses a FIFO and a symlink to /dev/zero at once, without reading them', async () => {
    const p = makeProject();
    execFileSync('mkfifo', [path.join(p.root, 'tasks/fifo.json')]);
    symlinkSync('/dev/zero', path.join(p.root, 'tasks/zero.json'));
    for (const [command] of COMMANDS) {
      for (const [file, kind] of [
        ['tasks/fifo.json', 'FIFO'],
        ['tasks/zero.json', 'device'],
      ]) {
        // Spawned: a read that hangs on the FIFO is killed after the helper's 60 s, and hangs no other case.
        const result = await timed([command, file!], p.root, p.env, spawnCli);
        expectRefused(result, file!, new RegExp(`is a ${kind}, not a regular file`));
        expect(result.ms).toBeLessThan(20_000); // the CLI's start-up under load; a hang is the helper's 60 s
      }
    }
    // The config too.
    execFileSync('rm', [path.join(p.root, 'elenchos.config.json')]);
    execFileSync('mkfifo', [path.join(p.root, 'elenchos.config.json')]);
    expectRefused(await timed(['check', 'tasks/add-task.json'], p.root, p.env, spawnCli), 'elenchos.config.json', /is a FIFO/);
  }, 120_000);

  it('refuses a task with an error late in a 2 MB file quickly (locating it was quadratic)', async () => {
    const p = makeProject();
    const filler = Array.from({ length: 20_000 }, (_, i) => `"k${i}": "${'x'.repeat(30)}"`).join(',\n');
    writeFileSync(path.join(p.root, 'tasks/add-task.json'), `{\n${filler},\n"late": NaN}\n`);
    commit(p.root);
    const result = await timed(['check', 'tasks/add-task.json'], p.root, p.env);
    expectRefused(result, 'tasks/add-task.json:20002:', /Unexpected token "N"/);
    expect(result.ms).toBeLessThan(20_000);
  }, 60_000);
});

describe.concurrent('Kane variables files', { timeout: CONCURRENT_TIMEOUT }, () => {
  it('refuses a broken .testmuai/variables/*.json in check and run, before Kane would', async () => {
    const p = makeProject();
    mkdirSync(path.join(p.root, '.testmuai/variables'), { recursive: true });
    writeFileSync(
      path.join(p.root, '.testmuai/variables/env.json'),
      '{"start_url": {"value": "http://a/"}, "start_url": {"value": "http://b/"}}',
    );
    commit(p.root);
    for (const command of ['check', 'run']) {
      expectRefused(
        await timed([command, 'tasks/add-task.json'], p.root, p.env),
        '.testmuai/variables/env.json:1:',
        /duplicate key "start_url"/,
      );
    }
    expect(runsOf(p.root)).toEqual([]);
  }, 60_000);
});

describe.concurrent('test files', { timeout: CONCURRENT_TIMEOUT }, () => {
  it('refuses a test file over 4 MiB (one 50 MB line took 1.1 GB to read)', async () => {
    const p = makeProject();
    writeFileSync(
      path.join(p.root, 'tests/add-task_test.md'),
      `## Step 1 @verifies AC-001 @verifies AC-002\n${'x'.repeat(5 * 1024 * 1024)}\n`,
    );
    commit(p.root);
    for (const command of ['check', 'run']) {
      expectRefused(
        await timed([command, 'tasks/add-task.json'], p.root, p.env),
        'add-task_test.md',
        /too large \(5 MiB, the limit is 4 MiB\)/,
      );
    }
    expect(runsOf(p.root)).toEqual([]);
  }, 60_000);
});

describe.concurrent('values check must refuse because run cannot use them', { timeout: CONCURRENT_TIMEOUT }, () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['a NUL byte in agent.args', { agent: { args: ['a\u0000b'] } }, /agent\.args\[0\]: must not contain a NUL byte/],
    ['a NUL byte in verifier.args', { verifier: { type: 'kane', args: ['\u0000'] } }, /verifier\.args\[0\]: must not contain a NUL byte/],
    ['a NUL byte in an agent.env key', { agent: { env: { 'A\u0000B': '1' } } }, /agent\.env.*environment variable name/],
    [
      'a NUL byte in an app.env value',
      { app: { command: 'node app.js --port {port}', env: { A: 'x\u0000' } } },
      /app\.env\.A: must not contain a NUL byte/,
    ],
    [
      'a javascript: app.url',
      { app: { command: 'node app.js --port {port}', url: 'javascript:alert(1)' } },
      /app\.url: must be an http:\/\/ or https:\/\/ URL/,
    ],
    [
      'a file: app.url',
      { app: { command: 'node app.js --port {port}', url: 'file:///etc/passwd' } },
      /app\.url: must be an http:\/\/ or https:\/\/ URL/,
    ],
    ['a setup.copy file that does not exist', { setup: { copy: ['.env.local'] } }, /setup\.copy\[0\]: ".env.local" does not exist/],
    ['a setup.copy path leaving the repository', { setup: { copy: ['../secrets.env'] } }, /setup\.copy\[0\]: must not contain "\.\."/],
  ];
  for (const [name, config, pattern] of cases) {
    it(`refuses ${name} in check and run`, async () => {
      const p = makeProject({ config });
      for (const command of ['check', 'run']) {
        expectRefused(await timed([command, 'tasks/add-task.json'], p.root, p.env), 'elenchos.config.json', pattern);
      }
      expect(runsOf(p.root)).toEqual([]);
    }, 60_000);
  }

  it('refuses a setup.copy entry that is a FIFO (copying it would hang the run)', async () => {
    const p = makeProject({ config: { setup: { copy: ['vars.json'] } } });
    execFileSync('mkfifo', [path.join(p.root, 'vars.json')]);
    writeFileSync(path.join(p.root, '.gitignore'), 'vars.json\n');
    commit(p.root);
    for (const command of ['check', 'run']) {
      expectRefused(await timed([command, 'tasks/add-task.json'], p.root, p.env), 'setup.copy[0]', /"vars.json" is not a file/);
    }
  }, 60_000);
});

describe.concurrent('untrusted text in human output', { timeout: CONCURRENT_TIMEOUT }, () => {
  it('escapes terminal control sequences and cuts very long text in check, run and show', async () => {
    const ansi = 'Add \u001b[2J\u001b[31mred\u001b[0m \u001b]8;;http://evil.example\u0007link\u001b]8;;\u0007 \u202eevil\u202c';
    const p = makeProject();
    writeFileSync(path.join(p.root, 'tasks/add-task.json'), taskJson({ title: ansi, description: `long ${'d'.repeat(300_000)}` }));
    commit(p.root);
    const check = await runMain(['check', 'tasks/add-task.json'], p.root, p.env);
    expect(check.code).toBe(0);
    const run = await runMain(['run', 'tasks/add-task.json'], p.root, p.env);
    expect(run.code, run.stderr).toBe(0);
    const show = await runMain(['show', 'latest'], p.root, p.env);
    for (const output of [check.stdout, run.stdout, show.stdout]) {
      // eslint-disable-next-line no-control-regex -- control characters are what this test looks for
      expect(output).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
      for (const line of output.split('\n')) expect(line.length).toBeLessThan(2100);
    }
    expect(check.stdout).toContain('Add \\u001b[2J\\u001b[31mred\\u001b[0m \\u001b]8;;http://evil.example\\u0007link');
  }, 120_000);
});
