// A generated fuzz test over task and config files: a few hundred malformed inputs (seeded, so every
// run tries the same ones) through `check` and the loaders in-process, and a sample through the real
// CLI. Each must be refused in one line naming the file, with no stack trace and no hang.
// @module-tag slow
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram, main } from '../../src/cli.js';
import { loadConfig } from '../../src/config/load-config.js';
import { loadTask } from '../../src/contract/load-task.js';
import { checkTasks } from '../../src/core/check.js';
import { ElenchosError } from '../../src/errors.js';
import { mergeShards } from '../../src/core/verify/merge.js';
import { listStoredRuns, showStoredRun } from '../../src/core/stored-runs/inspect-runs.js';
import { verifyEvidence } from '../../src/core/verify/verify-evidence.js';
import { writeReport } from '../../src/core/stored-runs/report.js';
import { renderHtmlReport } from '../../src/reporters/html-report.js';
import { collectGarbage } from '../../src/core/stored-runs/gc.js';
import { lockTasks } from '../../src/core/lock/lock-tasks.js';
import { verifyAttestation } from '../../src/attest/verify-attestation.js';
import { KaneStreamState } from '../../src/verifiers/kane/stream-state.js';
import { classifyKane } from '../../src/verifiers/kane/classify.js';
import { parseTestMd } from '../../src/verifiers/kane/test-md.js';
import { readJsonReport } from '../../src/verifiers/playwright/json-report.js';
import { runMain, spawnCli } from '../helpers/cli.js';
import { FIXTURES, makeProject } from '../helpers/project.js';
import { gitSync, taskJson, tempDir } from '../helpers/temp.js';

/** mulberry32: a tiny seeded generator, so a failure names an input that can be generated again. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VALID_CONFIG = JSON.stringify(
  {
    agent: { type: 'command', command: 'node', args: ['agent.js'] },
    app: { command: 'node app.js --port {port}' },
    verifier: { type: 'kane' },
  },
  null,
  2,
);
const JUNK = [
  '\u0000',
  '\uFEFF',
  '\u001b[31m',
  ',',
  '}',
  ']',
  '{',
  '[',
  '"',
  ':',
  'NaN',
  'Infinity',
  '-',
  '1e999',
  '/* c */',
  "'",
  '\\',
  '\ud800',
  'null',
  'true',
  '\n',
  '\u2028',
  'undefined',
];
const WRONG = [
  'null',
  '0',
  '-1',
  '1.5',
  '1e400',
  'true',
  '[]',
  '{}',
  '""',
  '"\\u0000"',
  '"../../etc/passwd"',
  '"/etc/passwd"',
  '"javascript:alert(1)"',
  `"${'x'.repeat(5000)}"`,
  '[[[[[[]]]]]]',
  '{"a":{"b":{"c":{}}}}',
];

/** One malformed variant of `text`; `kind` says what was done (for the failure message). */
function mutate(text: string, rnd: () => number): { kind: string; text: string } {
  const at = () => Math.floor(rnd() * text.length);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
  const keys = [...text.matchAll(/"([A-Za-z$]+)":/g)];
  switch (Math.floor(rnd() * 9)) {
    case 0:
      return { kind: 'truncated', text: text.slice(0, at()) };
    case 1: {
      const i = at();
      return { kind: 'junk inserted', text: text.slice(0, i) + pick(JUNK) + text.slice(i) };
    }
    case 2: {
      const i = at();
      return { kind: 'range deleted', text: text.slice(0, i) + text.slice(i + 1 + Math.floor(rnd() * 20)) };
    }
    case 3: {
      const key = pick(keys);
      return { kind: `duplicate key ${key[1]}`, text: `${text.slice(0, key.index)}"${key[1]}": ${pick(WRONG)}, ${text.slice(key.index)}` };
    }
    case 4: {
      const key = pick(keys);
      const start = key.index! + key[0].length;
      const end = findValueEnd(text, start);
      return { kind: `${key[1]} replaced`, text: `${text.slice(0, start)} ${pick(WRONG)}${text.slice(end)}` };
    }
    case 5: {
      const depth = 60 + Math.floor(rnd() * 20_000);
      const key = pick(keys);
      const start = key.index! + key[0].length;
      return {
        kind: `nested ${depth} deep`,
        text: `${text.slice(0, start)} ${'['.repeat(depth)}${']'.repeat(depth)}${text.slice(findValueEnd(text, start))}`,
      };
    }
    case 6:
      return { kind: 'unknown key', text: text.replace('{', `{"${pick(['tilte', 'agnet', '__proto__', 'constructor', 'x\u0000y'])}": 1,`) };
    case 7:
      return { kind: 'not an object', text: pick(WRONG) };
    default: {
      const bytes = Buffer.from(text);
      for (let n = 1 + Math.floor(rnd() * 4); n > 0; n--) bytes[Math.floor(rnd() * bytes.length)] = Math.floor(rnd() * 256);
      return { kind: 'bytes flipped', text: bytes.toString('latin1') };
    }
  }
}

// The end of the JSON value starting at `start` (after `"key":`), by bracket counting outside strings.
function findValueEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      if (depth === 0) return i;
      depth--;
    } else if (c === ',' && depth === 0) return i;
  }
  return text.length;
}

/** Resolves or rejects within `ms`, else fails as a hang. */
async function withinTime<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`hung for more than ${ms} ms`)), ms)));
  try {
    return await Promise.race([work, hang]);
  } finally {
    clearTimeout(timer);
  }
}

/** The hostile file kinds: none of them is a regular JSON file. */
function hostileFiles(dir: string, stem: string): string[] {
  execFileSync('mkfifo', [path.join(dir, `${stem}-fifo.json`)]);
  symlinkSync('/dev/zero', path.join(dir, `${stem}-zero.json`));
  symlinkSync('/dev/urandom', path.join(dir, `${stem}-urandom.json`));
  mkdirSync(path.join(dir, `${stem}-dir.json`));
  writeFileSync(path.join(dir, `${stem}-empty.json`), '');
  writeFileSync(path.join(dir, `${stem}-huge.json`), `{"id": "${'a'.repeat(2 * 1024 * 1024)}"}`);
  symlinkSync('missing.json', path.join(dir, `${stem}-dangling.json`));
  return ['fifo', 'zero', 'urandom', 'dir', 'empty', 'huge', 'dangling'].map((k) => `${stem}-${k}.json`);
}

const TASKS = 300;
const CONFIGS = 200;

describe('fuzzed task and config files', () => {
  const p = makeProject();
  const rnd = random(20261130);
  const validTask = taskJson();
  const taskInputs = Array.from({ length: TASKS }, () => mutate(validTask, rnd));
  const configInputs = Array.from({ length: CONFIGS }, () => mutate(VALID_CONFIG, rnd));
  const tally = { tried: 0, refused: 0, accepted: 0 };

  it(`${TASKS} generated and 7 hostile task files: check refuses each naming the file, or accepts a valid one`, async () => {
    mkdirSync(path.join(p.root, 'fuzz'), { recursive: true });
    const files = taskInputs.map((input, i) => {
      const name = `fuzz/task-${i}.json`;
      writeFileSync(path.join(p.root, name), Buffer.from(input.text, input.kind === 'bytes flipped' ? 'latin1' : 'utf8'));
      return { name, kind: input.kind };
    });
    files.push(...hostileFiles(path.join(p.root, 'fuzz'), 'task').map((name) => ({ name: `fuzz/${name}`, kind: name })));
    // One call for all (one repository lookup, as `elenchos check tasks/*.json` would do); a hang fails it.
    const started = Date.now();
    const report = await withinTime(20_000, checkTasks({ cwd: p.root, files: files.map((f) => f.name), env: {} }));
    const elapsed = Date.now() - started;
    for (const [i, { name, kind }] of files.entries()) {
      const task = report.tasks[i]!;
      tally.tried++;
      if (task.ok) {
        tally.accepted++;
        // Accepted only if it really is a valid contract, and never one these mutations always break.
        expect(kind, name).not.toMatch(
          /duplicate key|nested|not an object|unknown key|-(fifo|zero|urandom|dir|empty|huge|dangling)\.json$/,
        );
        await expect(loadTask(name, { root: p.root }), `${name} (${kind})`).resolves.toBeDefined();
      } else {
        tally.refused++;
        expect(task.problems.length, `${name} (${kind})`).toBeGreaterThan(0);
        expect(task.problems[0], `${name} (${kind})`).toContain(name);
      }
    }
    expect(elapsed / files.length).toBeLessThan(200); // well under a second each, even on a loaded machine
  }, 60_000);

  it(`${CONFIGS} generated and 7 hostile config files: loadConfig refuses each with an input error naming the file`, async () => {
    const dir = path.join(p.root, 'fuzz-config');
    mkdirSync(dir, { recursive: true });
    const files = configInputs.map((input, i) => {
      const name = `fuzz-config/config-${i}.json`;
      writeFileSync(path.join(p.root, name), Buffer.from(input.text, input.kind === 'bytes flipped' ? 'latin1' : 'utf8'));
      return { name, kind: input.kind };
    });
    files.push(...hostileFiles(dir, 'config').map((name) => ({ name: `fuzz-config/${name}`, kind: name })));
    for (const { name, kind } of files) {
      const started = Date.now();
      const outcome = await withinTime(
        2000,
        loadConfig({ root: p.root, file: name, env: {} }).then(
          () => null,
          (error: unknown) => error,
        ),
      );
      tally.tried++;
      if (outcome === null) {
        tally.accepted++;
        expect(kind, name).not.toMatch(/duplicate key|nested|unknown key|-(fifo|zero|urandom|dir|empty|huge|dangling)\.json$/);
      } else {
        tally.refused++;
        expect(outcome, `${name} (${kind}): ${String(outcome)}`).toBeInstanceOf(ElenchosError);
        const error = outcome as ElenchosError;
        expect(error.exitCode, `${name} (${kind})`).toBe(3);
        expect([error.message, ...error.details].join('\n'), `${name} (${kind})`).toContain(name);
      }
      expect(Date.now() - started, `${name} (${kind})`).toBeLessThan(1000);
    }
    // The figure docs/security.md quotes.
    console.log(
      `fuzz: ${tally.tried} inputs tried, ${tally.refused} refused in one line naming the file, ${tally.accepted} valid and accepted, 0 stack traces, 0 hangs`,
    );
  }, 60_000);

  it('a sample through the CLI, the FIFO through the built one: check, run and verify exit 3 naming the file, no stack trace', async () => {
    const sample = [7, 61, 113, 167].map((i) => `fuzz/task-${i}.json`);
    sample.push('fuzz/task-fifo.json', 'fuzz/task-zero.json');
    // In-process (main(argv, io)), but for the FIFO: a read that blocked on it would block this worker too,
    // where a spawned CLI that hangs is killed at its timeout and fails the case. All at once.
    const calls = sample.flatMap((file) =>
      (file.endsWith('-fifo.json') ? ['check', 'run', 'verify'] : ['check']).map(async (command) => {
        const run = file.endsWith('-fifo.json') ? spawnCli : runMain;
        return { command, file, result: await run([command, file], p.root, p.env) };
      }),
    );
    let cli = 0;
    for (const { command, file, result } of await Promise.all(calls)) {
      const output = result.stdout + result.stderr;
      cli++;
      if (result.code === 0) continue; // a mutation that stayed valid
      expect(result.code, `${command} ${file}: ${output}`).toBe(3);
      expect(output, `${command} ${file}`).toContain(file);
      expect(output, `${command} ${file}`).not.toMatch(/\n\s+at |unexpected error/);
    }
    expect(cli).toBe(8);
    rmSync(path.join(p.root, 'fuzz'), { recursive: true, force: true });
  }, 120_000);
});

// Every command's arguments, and every file format a command reads that holds a count, a size or an index:
// seeded (the same inputs every run), in-process (main(argv, io) and the readers themselves), with a few
// runs of the real CLI for the exit code and the one line. Each input is refused with exit 3 (or 4: a
// shard set that is not one verification) in one line, in time, or is valid and accepted; never a stack
// trace, never exit 2 for a user's mistake, never a hang.
// FUZZ_ARG_CASES and FUZZ_SEED try more or other argument lists (the defaults are what `npm test` runs).
const ARG_CASES = Number(process.env.FUZZ_ARG_CASES ?? 80);
const FILE_CASES = 30;

interface Setup {
  p: ReturnType<typeof makeProject>;
  runId: string;
  runDir: string;
  shard: string;
  attestation: string;
  publicKey: string;
}

let made: Promise<Setup> | undefined;

/** The setup below, made by the first case that needs it (`-t` may run any one of them alone). */
const theSetup = (): Promise<Setup> => (made ??= makeSetup());

/** A project with a stored VERIFIED run, a verify --json output (a shard 1/1) and its attestation; then its verifier made to be missing, so that no fuzzed `run` or `verify` gets as far as running anything. */
async function makeSetup(): Promise<Setup> {
  const p = makeProject();
  const outside = tempDir('elenchos-fuzz-outside-');
  const keys = await runMain(['attest', 'keygen', '--out', path.join(outside, 'keys')], p.root, p.env);
  expect(keys.code, keys.stderr).toBe(0);
  const run = await runMain(['run', 'tasks/add-task.json', '--json'], p.root, p.env);
  expect(run.code, run.stderr).toBe(0);
  const record = JSON.parse(run.stdout) as { runId: string };
  const attestation = path.join(outside, 'verdict.intoto.json');
  const verify = await runMain(
    ['verify', '--json', '--attest', attestation, '--attest-key', path.join(outside, 'keys/elenchos-attest.key')],
    p.root,
    p.env,
  );
  expect(verify.code, verify.stderr).toBe(1); // HEAD has the page without the task: FAILED, still a verdict and an attestation
  const shard = path.join(outside, 'shard-1.json');
  writeFileSync(shard, verify.stdout);
  const configFile = path.join(p.root, 'elenchos.config.json');
  const config = JSON.parse(readFileSync(configFile, 'utf8')) as { verifier: { command: string } };
  config.verifier.command = '/nonexistent/kane-cli';
  writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
  gitSync(p.root, 'commit', '-qam', 'no verifier');
  // Hostile names the fuzzed paths point at: a file where a folder is wanted, a folder, a FIFO, a device.
  writeFileSync(path.join(p.root, 'plain.txt'), 'plain\n');
  mkdirSync(path.join(p.root, 'folder'));
  execFileSync('mkfifo', [path.join(p.root, 'fifo')]);
  symlinkSync('/dev/zero', path.join(p.root, 'zero'));
  return {
    p,
    runId: record.runId,
    runDir: path.join(p.root, '.elenchos/runs', record.runId),
    shard,
    attestation,
    publicKey: path.join(outside, 'keys/elenchos-attest.pub'),
  };
}

/** Runs the CLI in-process with its own streams: the exit code and what it wrote. */
async function inProcess(argv: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  const stdin = new PassThrough();
  stdin.end();
  const code = await main(['node', 'elenchos', ...argv], { stdout, stderr, stdin, env, cwd, isTTY: false });
  return { code, out, err };
}

const NUMBERS = [
  '0',
  '-1',
  '1.5',
  '1e3',
  '1e999',
  '99999999999999999999',
  '9'.repeat(400),
  'NaN',
  '0x10',
  ' 7',
  '',
  '٣',
  '5000000000',
  '2000000',
];
const SHARDS = [
  '0/0',
  '1/5000000000',
  '5000000000/5000000000',
  '2000000/2000000',
  '1/2000000',
  '3/2',
  'auto/9999999',
  'auto/0',
  '1/1/1',
  'a/b',
];
// Paths a command only reads; what it writes never goes to the FIFO (a writer waits for a reader, as `cat > fifo` does).
const READ_PATHS = [
  'plain.txt',
  'folder',
  'fifo',
  'zero',
  'missing/deeper/x',
  'plain.txt/below',
  '',
  ' ',
  'x'.repeat(300),
  'a\u0001b\u001b[31m',
  '.elenchos',
];
const WRITE_PATHS = READ_PATHS.filter((p) => p !== 'fifo');
const WORDS = ['', ' ', 'latest', 'x'.repeat(100_000), '\u0000', '--', '-x', 'a\nb', '\u202e', 'HEAD~999', 'origin/nope', '../..', 'café'];
const WRITES = new Set(['--out', '--junit', '--to', '--attest', '--evidence']);
const COUNTS = new Set([
  '--workers',
  '--max-repairs',
  '--max-cost-usd',
  '--max-kane-credits',
  '--max-minutes',
  '--best-of',
  '--parallel',
  '--attempt',
]);
const READS = new Set(['--config', '--key', '--trusted-root', '--verdict', '--signing-key-file', '--attest-key']);

/** The values worth trying for an option or argument called `name`. */
function pool(name: string): readonly string[] {
  if (name === '--shard') return [...SHARDS, ...WORDS];
  if (COUNTS.has(name)) return NUMBERS;
  if (WRITES.has(name)) return WRITE_PATHS;
  if (READS.has(name)) return READ_PATHS;
  if (/task|file|verdict/.test(name)) return [...READ_PATHS, 'tasks/add-task.json'];
  return [...WORDS, ...NUMBERS.slice(0, 4), ...READ_PATHS.slice(0, 4)];
}

interface CommandShape {
  path: string[];
  args: { name: string; required: boolean; variadic: boolean }[];
  options: { long: string; takes: 'value' | 'optional' | 'none' }[];
}

/** Every command of the program, with its arguments and options, as commander holds them. */
async function commandShapes(): Promise<CommandShape[]> {
  const io = { stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough(), env: {}, cwd: '/', isTTY: false };
  const shapes: CommandShape[] = [];
  const walk = (command: Command, at: string[]) => {
    for (const sub of command.commands) {
      const here = [...at, sub.name()];
      // mcp serves stdin until it ends, init writes a project of its own: both have their own cases below.
      if (!['mcp', 'init', 'help'].includes(here[0]!))
        shapes.push({
          path: here,
          args: sub.registeredArguments.map((a) => ({ name: a.name(), required: a.required, variadic: a.variadic })),
          options: sub.options.map((o) => ({ long: o.long!, takes: o.required ? 'value' : o.optional ? 'optional' : 'none' })),
        });
      walk(sub, here);
    }
  };
  walk(await buildProgram(io, () => undefined), []);
  return shapes;
}

/** One argument list for one command, with at least one value drawn from the hostile pools. */
function argumentCase(shape: CommandShape, rnd: () => number, good: (name: string) => string): string[] {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
  const argv = [...shape.path];
  for (const arg of shape.args) if (arg.required || rnd() < 0.5) argv.push(rnd() < 0.5 ? pick(pool(arg.name)) : good(arg.name));
  const chosen = [...shape.options].sort(() => rnd() - 0.5).slice(0, 1 + Math.floor(rnd() * 2));
  if (chosen.length === 0 || chosen.every((o) => o.takes === 'none')) {
    if (shape.args.length > 0) argv[shape.path.length] = pick(pool(shape.args[0]!.name));
    else argv.push('--signing-key-file', pick(READ_PATHS));
  }
  for (const option of chosen) {
    argv.push(option.long);
    if (option.takes === 'value' || (option.takes === 'optional' && rnd() < 0.5)) argv.push(pick(pool(option.long)));
  }
  return argv;
}

const STACK = /unexpected error|\n\s+at .+[:(]\d+:\d+\)?/;

describe('fuzzed command arguments and the files the commands read', () => {
  it(`${ARG_CASES} generated argument lists through main(argv, io): exit 0, 1, 3 or 4, one line, no stack trace, no hang`, async () => {
    const setup = await theSetup();
    const { p, runId } = setup;
    const rnd = random(Number(process.env.FUZZ_SEED ?? 20261207));
    const shapes = await commandShapes();
    expect(shapes.map((s) => s.path.join(' '))).toEqual(expect.arrayContaining(['verify', 'merge', 'attest keygen', 'restore', 'gc']));
    const good = (name: string) =>
      name.startsWith('run')
        ? runId
        : /task/.test(name)
          ? 'tasks/add-task.json'
          : name === 'verdict' || name === 'files'
            ? setup.shard
            : setup.attestation;
    const tally = { tried: 0, refused: 0, accepted: 0, codes: new Map<number, number>() };
    for (let i = 0; i < ARG_CASES; i++) {
      const argv = argumentCase(shapes[i % shapes.length]!, rnd, good);
      const name = JSON.stringify(argv.map((a) => (a.length > 40 ? `${a.slice(0, 20)}…(${a.length})` : a)));
      const started = Date.now();
      const result = await withinTime(30_000, inProcess(argv, p.root, p.env));
      tally.tried++;
      tally.codes.set(result.code, (tally.codes.get(result.code) ?? 0) + 1);
      const output = result.out + result.err;
      expect(output, name).not.toMatch(STACK);
      // Never 2: that is an error of Elenchos or of the machine, not a reply to what the user typed.
      expect([0, 1, 3, 4], `${name}: ${output.slice(0, 400)}`).toContain(result.code);
      if (result.code === 3) {
        tally.refused++;
        // One line saying what is wrong (commander's `error: …`, or ours), with details indented under it.
        expect(result.err.split('\n').filter((l) => /^(elenchos|error):/.test(l)).length, `${name}: ${result.err}`).toBeLessThanOrEqual(1);
      } else tally.accepted++;
      expect(Date.now() - started, name).toBeLessThan(30_000);
    }
    console.log(
      `fuzz: ${tally.tried} argument lists over ${shapes.length} commands: ${tally.refused} refused (exit 3), ${tally.accepted} ran (exit codes ${[...tally.codes].map(([c, n]) => `${c}×${n}`).join(', ')}), 0 stack traces, 0 hangs`,
    );
  }, 600_000);

  it('the reported cases, through the real CLI: exit 3 or 4 in one line, no stack trace, in time', async () => {
    const setup = await theSetup();
    const { p } = setup;
    const metadata = JSON.parse(readFileSync(setup.shard, 'utf8')) as { metadata: { shard: { index: number; total: number } } };
    const cases: { argv: string[]; code: number; says: RegExp }[] = [
      { argv: ['attest', 'keygen', '--out', 'plain.txt'], code: 3, says: /--out .*plain\.txt is a file, not a folder/ },
      { argv: ['verify', '--workers', '99999999999'], code: 3, says: /--workers/ },
      { argv: ['verify', '--shard', '1/5000000000'], code: 3, says: /at most 1000 shards/ },
      { argv: ['init', '--app-command', ''], code: 3, says: /--app-command/ },
      { argv: ['attest', 'predicate', 'zero'], code: 3, says: /zero: cannot read \(is a device/ },
    ];
    for (const total of [5_000_000_000, 2_000_000, 10_000_000]) {
      const file = path.join(tempDir('elenchos-fuzz-shard-'), `total-${total}.json`);
      writeFileSync(file, JSON.stringify({ ...metadata, metadata: { ...metadata.metadata, shard: { index: 1, total } } }));
      cases.push({ argv: ['merge', file], code: 3, says: /shard\.total: .*1000/ });
    }
    // All at once: each CLI is a process of its own, timed on its own.
    const started = Date.now();
    const results = await Promise.all(
      cases.map(async (c) => ({ ...c, result: await spawnCli(c.argv, p.root, p.env), ms: Date.now() - started })),
    );
    for (const { argv, code, says, result, ms } of results) {
      const output = result.stdout + result.stderr;
      expect(result.code, `${argv.join(' ')}: ${output}`).toBe(code);
      expect(output, argv.join(' ')).toMatch(says);
      expect(output, argv.join(' ')).not.toMatch(STACK);
      expect(
        result.stderr
          .trim()
          .split('\n')
          .filter((l) => !l.startsWith('  ')).length,
        argv.join(' '),
      ).toBe(1);
      expect(ms, argv.join(' ')).toBeLessThan(10_000);
    }
  }, 120_000);

  /** Resolves to null, or to the error when it is an ElenchosError of one of `codes`; anything else fails the case. */
  async function refusedOrAccepted(
    label: string,
    work: Promise<unknown>,
    codes: readonly number[],
    ms = 5000,
  ): Promise<ElenchosError | null> {
    const outcome = await withinTime(
      ms,
      work.then(
        () => null,
        (error: unknown) => error,
      ),
    );
    if (outcome === null) return null;
    expect(outcome, `${label}: ${String(outcome)}`).toBeInstanceOf(ElenchosError);
    expect(codes, `${label}: ${String(outcome)}`).toContain((outcome as ElenchosError).exitCode);
    return outcome as ElenchosError;
  }

  /** Every number in `text` replaced by `value` (a count, a size, an index read from the file). */
  const numbersAs = (text: string, value: string) => text.replace(/(?<=[:[,]\s*)-?\d+(\.\d+)?(e[+-]?\d+)?(?=\s*[,}\]])/gi, value);
  const EXTREMES = ['5000000000', '2000000', '10000000', '-1', '0', '1.5', '1e308', '9007199254740993'];

  it('shard outputs: merge takes a valid one and refuses every other with exit 3 or 4, in time', async () => {
    const setup = await theSetup();
    const text = readFileSync(setup.shard, 'utf8');
    const rnd = random(20261208);
    const dir = tempDir('elenchos-fuzz-shards-');
    const value = JSON.parse(text) as { metadata: Record<string, unknown> & { tasks: string[]; plan: string[] } };
    const inputs = [
      { kind: 'as written', text },
      ...EXTREMES.map((n) => ({ kind: `every number ${n}`, text: numbersAs(text, n) })),
      ...['5000000000', '2000000', '0', '-3', '1.5', '"2"', 'null'].map((n) => ({
        kind: `shard.total ${n}`,
        text: text.replace(/"total":\s*\d+/, `"total": ${n}`),
      })),
      // A long task list is bounded by the file's size alone: it must still be judged in time.
      {
        kind: '200,000 tasks',
        text: JSON.stringify({
          ...value,
          metadata: { ...value.metadata, tasks: Array.from({ length: 200_000 }, (_, i) => `t/${i}.json`) },
        }),
      },
      ...Array.from({ length: FILE_CASES }, () => mutate(text, rnd)),
    ];
    const tally = { accepted: 0, refused: 0 };
    for (const [i, input] of inputs.entries()) {
      const file = path.join(dir, `shard-${i}.json`);
      writeFileSync(file, Buffer.from(input.text, input.kind === 'bytes flipped' ? 'latin1' : 'utf8'));
      const refused = await refusedOrAccepted(`${input.kind} (${file})`, mergeShards([file], dir), [3, 4], 3000);
      if (refused) tally.refused++;
      else tally.accepted++;
      if (input.kind.startsWith('shard.total') && input.kind !== 'shard.total 1') expect(refused, input.kind).not.toBeNull();
    }
    expect(tally.accepted).toBeGreaterThan(0); // the file as written, at least
    console.log(`fuzz: ${inputs.length} shard outputs: ${tally.refused} refused (exit 3 or 4), ${tally.accepted} valid`);
  }, 120_000);

  it('a stored run with run.json, attempt.json, a manifest or an ack mutated: browsing, evidence verify, report and gc answer or refuse, in time', async () => {
    const { p, runId, runDir } = await theSetup();
    const rnd = random(20261209);
    const ackDir = path.join(p.root, '.elenchos/acks/add-task');
    mkdirSync(ackDir, { recursive: true });
    const ack = JSON.stringify({ task: 'add-task', runId, by: 'u', note: 'n', at: new Date().toISOString() });
    const targets = ['run.json', 'manifest.json', 'attempts/01/attempt.json', 'attempts/01/manifest.json', 'ACK'];
    const fileOf = (target: string) => (target === 'ACK' ? path.join(ackDir, 'fuzz.json') : path.join(runDir, target));
    const originals = new Map(targets.map((t) => [t, t === 'ACK' ? ack : readFileSync(fileOf(t), 'utf8')]));
    const out = path.join(tempDir('elenchos-fuzz-report-'), 'report.html');
    let cases = 0;
    for (let i = 0; i < FILE_CASES; i++) {
      const target = targets[i % targets.length]!;
      const original = originals.get(target)!;
      const input =
        i % 3 === 0
          ? { kind: `every number ${EXTREMES[i % EXTREMES.length]}`, text: numbersAs(original, EXTREMES[i % EXTREMES.length]!) }
          : mutate(original, rnd);
      writeFileSync(fileOf(target), Buffer.from(input.text, input.kind === 'bytes flipped' ? 'latin1' : 'utf8'));
      const label = `${target}: ${input.kind}`;
      await refusedOrAccepted(`runs, ${label}`, listStoredRuns(p.root), [3]);
      await refusedOrAccepted(`show, ${label}`, showStoredRun(p.root, runId), [3]);
      await refusedOrAccepted(`evidence verify, ${label}`, verifyEvidence({ cwd: p.root, runId }), [3]);
      // The heavier two (an HTML page, a /proc scan) on every other case.
      if (i % 2 === 0) {
        await refusedOrAccepted(`report, ${label}`, writeReport({ cwd: p.root, env: p.env, runId, out, render: renderHtmlReport }), [3]);
        await refusedOrAccepted(`gc, ${label}`, collectGarbage({ cwd: p.root, env: p.env, dryRun: true }), [3]);
      }
      cases++;
      writeFileSync(fileOf(target), original);
    }
    rmSync(fileOf('ACK'));
    expect(cases).toBe(FILE_CASES);
  }, 300_000);

  it('a test lock mutated: check refuses it naming the lock file, or finds it valid, in time', async () => {
    const { p } = await theSetup();
    await lockTasks({ cwd: p.root, files: ['tasks/add-task.json'], env: p.env, update: true });
    const lock = path.join(p.root, 'tasks/add-task.lock.json');
    const original = readFileSync(lock, 'utf8');
    const rnd = random(20261210);
    const inputs = [
      ...EXTREMES.map((n) => ({ kind: `every number ${n}`, text: numbersAs(original, n) })),
      ...Array.from({ length: FILE_CASES / 2 }, () => mutate(original, rnd)),
    ];
    for (const input of inputs) {
      writeFileSync(lock, Buffer.from(input.text, input.kind === 'bytes flipped' ? 'latin1' : 'utf8'));
      const report = await withinTime(5000, checkTasks({ cwd: p.root, files: ['tasks/add-task.json'], env: p.env }));
      const problems = report.tasks[0]!.problems.join('\n');
      if (!report.tasks[0]!.ok) expect(problems, input.kind).toMatch(/add-task\.lock\.json|kane-cli/);
    }
    for (const kind of ['fifo', 'zero']) {
      rmSync(lock, { force: true });
      if (kind === 'fifo') execFileSync('mkfifo', [lock]);
      else symlinkSync('/dev/zero', lock);
      const report = await withinTime(5000, checkTasks({ cwd: p.root, files: ['tasks/add-task.json'], env: p.env }));
      expect(report.tasks[0]!.problems.join('\n'), kind).toMatch(/add-task\.lock\.json: cannot read/);
    }
    rmSync(lock, { force: true });
  }, 120_000);

  it('an attestation mutated: attest verify refuses it (exit 1 or 3), in time', async () => {
    const setup = await theSetup();
    const { p } = setup;
    const original = readFileSync(setup.attestation, 'utf8');
    const rnd = random(20261211);
    const file = path.join(tempDir('elenchos-fuzz-att-'), 'attestation.json');
    const inputs = [
      ...EXTREMES.map((n) => ({ kind: `every number ${n}`, text: numbersAs(original, n) })),
      ...Array.from({ length: FILE_CASES }, () => mutate(original, rnd)),
    ];
    let refused = 0;
    for (const input of inputs) {
      writeFileSync(file, Buffer.from(input.text, input.kind === 'bytes flipped' ? 'latin1' : 'utf8'));
      const work = verifyAttestation({ cwd: p.root, env: p.env, file, signer: { keyFile: setup.publicKey }, commit: 'HEAD~1' });
      if (await refusedOrAccepted(input.kind, work, [1, 3])) refused++;
    }
    expect(refused).toBeGreaterThan(0);
  }, 120_000);

  it('a Kane stream mutated, or naming steps by the billion: classified, never thrown on, its memory bounded', () => {
    const corpus = path.join(FIXTURES, 'kane-corpus');
    const lines = readFileSync(path.join(corpus, 't1-shop_filter-author.ndjson'), 'utf8').split('\n').filter(Boolean);
    const declared = parseTestMd(readFileSync(path.join(corpus, 'tests/shop_filter_test.md'), 'utf8')).steps.map((s) => ({
      index: s.index,
      heading: s.heading,
      optional: false,
    }));
    const rnd = random(20261212);
    const streams: { kind: string; lines: string[] }[] = [
      ...EXTREMES.map((n) => ({ kind: `every number ${n}`, lines: lines.map((l) => numbersAs(l, n)) })),
      {
        kind: '100,000 distinct step indexes',
        lines: Array.from({ length: 100_000 }, (_, i) =>
          JSON.stringify({ type: 'test_md_step_start', step_index: i * 50_000 + 1, heading: 'h' }),
        ),
      },
      ...Array.from({ length: FILE_CASES }, (_, i) => {
        const copy = [...lines];
        const at = Math.floor(rnd() * copy.length);
        const changed = mutate(copy[at]!, rnd);
        copy[at] = changed.text;
        return { kind: `line ${at + 1}: ${changed.kind} (${i})`, lines: copy };
      }),
    ];
    for (const stream of streams) {
      const state = new KaneStreamState();
      let events = 0;
      for (const line of stream.lines) {
        let event: unknown;
        try {
          event = JSON.parse(line);
        } catch {
          continue; // the reader skips what does not parse, and counts it
        }
        if (event === null || typeof event !== 'object' || Array.isArray(event)) continue;
        state.feed(event as Record<string, unknown>);
        events++;
      }
      const facts = state.result();
      expect(facts.steps.size, stream.kind).toBeLessThanOrEqual(10_000);
      const process = {
        exitCode: 0,
        signal: null,
        timedOut: false,
        aborted: false,
        outputCapped: false,
        spawnError: null,
        timeoutMs: 1000,
        lastStderrLine: null,
      };
      expect(() => classifyKane({ facts, process, declared, eventCount: events, evidencePack: null }), stream.kind).not.toThrow();
    }
  });

  it('a Playwright JSON report mutated: a report or a reason, never a throw', async () => {
    const report = {
      config: { rootDir: '/x' },
      suites: [
        {
          title: 'a.spec.ts',
          file: 'a.spec.ts',
          specs: [
            {
              title: 'adds a task @AC-001',
              file: 'a.spec.ts',
              line: 3,
              column: 1,
              tests: [{ projectName: '', results: [{ status: 'passed', duration: 5, retry: 0, errors: [], attachments: [] }] }],
            },
          ],
        },
      ],
    };
    const text = JSON.stringify(report, null, 2);
    const rnd = random(20261213);
    const file = path.join(tempDir('elenchos-fuzz-pw-'), 'report.json');
    for (const input of [
      ...EXTREMES.map((n) => ({ kind: `every number ${n}`, text: numbersAs(text, n) })),
      ...Array.from({ length: FILE_CASES }, () => mutate(text, rnd)),
    ]) {
      writeFileSync(file, Buffer.from(input.text, input.kind === 'bytes flipped' ? 'latin1' : 'utf8'));
      const read = await withinTime(2000, readJsonReport(file));
      expect(typeof read.ok, input.kind).toBe('boolean');
    }
  });
});
