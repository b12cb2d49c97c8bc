// The commands that only read (or only print) load none of the heavy packages a run needs: execa and
// wait-on (axios, joi, rxjs) cost more CPU and memory to load than such a command itself
// (docs/performance.md); those that find the repository ask git through simple-git, the one way to git.
// Each command runs from the compiled modules (dist/cli.js, as the shim runs them without a bundle) with a
// preload that records every module loaded; `verify` in the same project is the control that proves the
// record sees those packages. The bundle the shim runs (dist/cli.cjs) reaches its modules through the same
// lazy imports; what it leaves outside (the TypeScript parser, Sigstore, the MCP SDK…) it must `require`,
// and the last cases trace that through the shim itself.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runMain } from '../helpers/cli.js';
import { FIXTURES, makeProject, processesInside } from '../helpers/project.js';
import { tempDir } from '../helpers/temp.js';
// @ts-expect-error: a plain JavaScript module of the build, without types
import { isExternal } from '../../scripts/bundle-external.js';

const PRELOAD = path.join(FIXTURES, 'module-trace/preload.mjs');
/** The CLI from its compiled modules, unbundled. */
const UNBUNDLED = path.join(FIXTURES, 'module-trace/unbundled.mjs');
/**
 * How many of its own modules `check` of one Kane task may load: 82 while the CLI registered every command
 * (each command's options and what they import), 58 once it registers only the one called.
 */
const MAX_CHECK_OWN = 60;
/** Elenchos's own compiled modules, as the loader names them. */
const OWN = `file://${path.join(path.dirname(path.dirname(BIN)), 'dist')}/`;
const DEPENDENCIES = Object.keys(
  (JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as { dependencies: object })
    .dependencies,
);

/** The packages (by name, nested ones included) among the modules one CLI call loaded, and its exit code. */
function tracedRun(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  traceDir: string,
  entry = UNBUNDLED,
): { code: number | null; packages: Set<string>; own: Set<string>; stdout: string } {
  const trace = path.join(traceDir, `${path.basename(entry)}-${args.join('_').replace(/[^\w.-]/g, '-')}.txt`);
  writeFileSync(trace, '');
  const result = spawnSync(process.execPath, ['--import', PRELOAD, entry, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ...env, ELENCHOS_TEST_MODULE_TRACE: trace },
    timeout: 120_000,
  });
  const packages = new Set<string>();
  const own = new Set<string>();
  for (const line of readFileSync(trace, 'utf8').split('\n')) {
    for (const match of line.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)\//g)) packages.add(match[1]!);
    if (line.startsWith(OWN)) own.add(line.slice(OWN.length));
  }
  return { code: result.status, packages, own, stdout: result.stdout };
}

let project: ReturnType<typeof makeProject>;
let traceDir: string;
let shard: string;
let verified: ReturnType<typeof tracedRun>;

beforeAll(async () => {
  project = makeProject();
  traceDir = tempDir('elenchos-trace-');
  // A real stored run (for show, runs, report) and a real shard output (for merge), made in this process
  // (what it loads is not the question here); then a traced verify as the control.
  shard = path.join(traceDir, 'shard.json');
  const out = await runMain(['verify', '--json'], project.root, project.env);
  expect(out.code, out.stderr).toBe(1); // HEAD lacks the feature: FAILED, and stored
  writeFileSync(shard, out.stdout);
  verified = tracedRun(['verify', 'tasks/add-task.json'], project.root, project.env, traceDir);
}, 300_000);

afterAll(() => {
  expect(processesInside(project.root), 'processes left').toEqual([]);
});

describe('light commands load only what they use', () => {
  it('the trace sees the heavy packages where they are used (verify with an app)', () => {
    expect(verified.code).toBe(1);
    for (const name of ['execa', 'simple-git', 'zod', 'commander']) expect(verified.packages).toContain(name);
    // wait-on only for an app that is not up within the plain GETs' first seconds (process/wait-ready.ts):
    // this project's app answers at once, so even verify never pays for axios, joi and rxjs.
    for (const name of ['wait-on', 'axios', 'rxjs', 'joi']) expect(verified.packages).not.toContain(name);
    // The TypeScript parser reads specs and JavaScript modules only: a Kane run never parses one.
    expect(verified.packages).not.toContain('typescript');
  });

  it('a Kane run never loads the TypeScript parser, Sigstore or the MCP SDK', () => {
    const ran = tracedRun(['run', 'tasks/add-task.json'], project.root, project.env, traceDir);
    expect(ran.code).toBe(0);
    // Its first line comes before the run's modules load and before preflight asks git anything.
    expect(ran.stdout.split('\n')[0]).toBe('elenchos run tasks/add-task.json: checking the config, the contract and the checkout');
    expect(ran.packages).toContain('execa'); // the trace saw the run's own packages
    for (const name of ['typescript', 'sigstore', '@sigstore/verify', '@sigstore/tuf', '@modelcontextprotocol/sdk', 'wait-on'])
      expect(ran.packages, name).not.toContain(name);
  }, 120_000);

  it('check of a Kane task loads no other command, no TypeScript parser, Sigstore, MCP SDK, execa or fast-glob', () => {
    const checked = tracedRun(['check', 'tasks/add-task.json'], project.root, project.env, traceDir);
    expect(checked.code).toBe(0);
    expect(checked.packages).toContain('zod'); // the trace saw the check's own packages
    for (const name of [
      'typescript',
      'sigstore',
      '@sigstore/verify',
      '@sigstore/tuf',
      '@modelcontextprotocol/sdk',
      'execa',
      'fast-glob',
      'tar',
    ])
      expect(checked.packages, name).not.toContain(name);
    for (const name of ['wait-on', 'axios', 'rxjs', 'joi']) expect(checked.packages, name).not.toContain(name);
    // Only the check command's own module of src/commands/: the others' options are not registered.
    expect([...checked.own].filter((file) => file.startsWith('commands/'))).toEqual(['commands/check.js']);
  });

  // Of the design's runtime packages, each command may load only these (their own dependencies aside).
  // {shard} and {dir} are filled in once the project exists.
  // `entry`: the shim itself where the shim is what answers; else the compiled modules (UNBUNDLED).
  const cases: { args: string[]; code: number; may: string[]; maxOwn?: number; entry?: string }[] = [
    // The shim answers `--version` alone: no package, none of Elenchos's own modules.
    { args: ['--version'], code: 0, may: [], maxOwn: 0, entry: BIN },
    { args: ['-V'], code: 0, may: [], maxOwn: 0, entry: BIN },
    { args: ['--help'], code: 0, may: ['commander'] },
    { args: ['verify', '--help'], code: 0, may: ['commander'] },
    { args: ['runs'], code: 0, may: ['commander', 'zod', 'simple-git'] },
    { args: ['show'], code: 0, may: ['commander', 'zod', 'simple-git'] },
    { args: ['show', '--json'], code: 0, may: ['commander', 'zod', 'simple-git'] },
    { args: ['report', 'latest', '--out', '{dir}/report.html'], code: 0, may: ['commander', 'zod', 'simple-git'] },
    { args: ['evidence', 'verify'], code: 0, may: ['commander', 'zod', 'simple-git'] },
    { args: ['merge', '{shard}'], code: 1, may: ['commander', 'zod'] },
    { args: ['merge', '{shard}', '--junit', '{dir}/merged.xml'], code: 1, may: ['commander', 'zod'] },
    // node:crypto alone; zod for the envelope's schema, which keygen's key id shares.
    { args: ['attest', 'keygen', '--out', '{dir}/keys'], code: 0, may: ['commander', 'zod'] },
    // picomatch is fast-glob's own matcher (through micromatch) and app.writes' (util/glob-match.ts).
    { args: ['check'], code: 0, may: ['commander', 'zod', 'fast-glob', 'picomatch', 'simple-git'] },
    // One Kane task named: no glob to expand, so no fast-glob; and no more of Elenchos than checking it needs.
    { args: ['check', 'tasks/add-task.json'], code: 0, may: ['commander', 'zod', 'picomatch', 'simple-git'], maxOwn: MAX_CHECK_OWN },
  ];
  for (const { args, code, may, maxOwn, entry } of cases) {
    it(`${args.join(' ')} loads ${may.join(', ')} and no other dependency`, () => {
      const filled = args.map((arg) => arg.replace('{shard}', shard).replace('{dir}', traceDir));
      const run = tracedRun(filled, project.root, project.env, traceDir, entry);
      expect(run.code).toBe(code);
      if (may.includes('commander')) expect(run.packages).toContain('commander'); // the trace worked for this call too
      if (maxOwn !== undefined) expect([...run.own].sort().length, [...run.own].sort().join(' ')).toBeLessThanOrEqual(maxOwn);
      const extra = DEPENDENCIES.filter((name) => run.packages.has(name) && !may.includes(name));
      expect(extra, `loaded by elenchos ${args.join(' ')}`).toEqual([]);
      for (const heavy of ['axios', 'joi', 'rxjs']) expect(run.packages.has(heavy), heavy).toBe(false);
    });
  }
});

describe('the bundle the shim runs', () => {
  it('check of a Kane task runs the bundle, not the compiled modules, and requires nothing it leaves outside', () => {
    const checked = tracedRun(['check', 'tasks/add-task.json'], project.root, project.env, traceDir, BIN);
    expect(checked.code).toBe(0);
    expect(checked.stdout).toContain('all 1 task(s) OK');
    expect([...checked.own], 'compiled modules loaded beside the bundle').toEqual([]);
    expect([...checked.packages].filter(isExternal)).toEqual([]);
  });

  it('a Kane run through the bundle requires no TypeScript parser, Sigstore, MCP SDK or wait-on', () => {
    const ran = tracedRun(['run', 'tasks/add-task.json'], project.root, project.env, traceDir, BIN);
    expect(ran.code).toBe(0);
    expect([...ran.own]).toEqual([]);
    for (const name of ['typescript', 'sigstore', '@sigstore/verify', '@sigstore/tuf', '@modelcontextprotocol/sdk', 'wait-on'])
      expect(ran.packages, name).not.toContain(name);
  }, 120_000);

  it('the trace sees what the bundle requires from outside (the control: check expands the config task globs)', () => {
    const checked = tracedRun(['check'], project.root, project.env, traceDir, BIN);
    expect(checked.code).toBe(0);
    expect([...checked.own]).toEqual([]);
    expect(checked.packages).toContain('fast-glob');
  });
});
