// `run --shard i/n --export` on separate clones, `join` on a third: the shares are checked against the joining
// checkout, the best candidate's stored change is replayed and verified there, and `apply` takes the winner.
// A share altered after export, from another commit, given twice, or claiming another place is named and never chosen.
// @module-tag slow
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { create, extract } from 'tar';
import { beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.js';
import { leftoversOf } from '../helpers/leftovers.js';
import { commandAgent, FORM_TASK, GIT_IDENTITY, makeProject, processesInside, TITLE_TASK } from '../helpers/project.js';
import { gitSync, tempDir } from '../helpers/temp.js';
import { leakedWorktrees } from '../helpers/worktrees.js';

const GOOD = '<h1>Tasks</h1><form>New task</form><ul><li>Buy milk</li></ul>\n';

let origin: { root: string; env: NodeJS.ProcessEnv };
let exports: string;
/**
 * A clone of `from` (the origin): a machine of its own, with nothing of the others' `.elenchos/`. `watch`
 * (leftoversOf) checks it for processes left when its case ends.
 */
function clone(watch: (root: string) => string, from = origin.root): string {
  const dir = path.join(tempDir('elenchos-clone-'), 'repo');
  execFileSync('git', ['clone', '--quiet', from, dir]);
  return watch(dir);
}

/** Runs share `i` of 2 in the clone `dir` and exports it. */
async function share(i: number, dir: string, extra: string[] = []): Promise<string> {
  const file = path.join(exports, `share-${i}-${path.basename(path.dirname(dir))}.tar.gz`);
  const result = await runMain(
    ['run', 'tasks/add-task.json', '--agents', 'small,big', '--shard', `${i}/2`, '--export', file, '--json', ...extra],
    dir,
    origin.env,
  );
  expect(result.code, result.stderr).toBe(0);
  expect(result.stderr).toContain(`exported share ${i}/2 (1 run(s))`);
  return file;
}

/** Unpacks an export, lets `edit` change it, packs it again (as an attacker with the file in hand would). */
function alter(file: string, edit: (dir: string) => void): string {
  const dir = tempDir('elenchos-altered-');
  extract({ file, cwd: dir, sync: true });
  edit(dir);
  const out = path.join(exports, `altered-${path.basename(dir)}.tar.gz`);
  create({ gzip: true, file: out, cwd: dir, sync: true, portable: true }, readdirSync(dir));
  return out;
}

/** Rewrites every manifest.json under `dir` (deepest first) to match what is there now, and the share's digests of them. */
function reseal(dir: string): void {
  const hash = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
  const walk = (folder: string): string[] =>
    readdirSync(folder, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(path.join(folder, e.name)) : [path.join(folder, e.name)],
    );
  const manifests = walk(dir)
    .filter((f) => path.basename(f) === 'manifest.json')
    .sort((a, b) => b.split('/').length - a.split('/').length);
  for (const m of manifests) {
    const folder = path.dirname(m);
    const files: Record<string, { sha256: string; size: number }> = {};
    for (const f of walk(folder)
      .filter((f) => f !== m)
      .sort()) {
      files[path.relative(folder, f)] = { sha256: hash(f), size: readFileSync(f).length };
    }
    writeFileSync(m, JSON.stringify({ schemaVersion: 1, algorithm: 'sha256', files }, null, 2));
  }
  const shareFile = path.join(dir, 'elenchos-share.json');
  const manifest = JSON.parse(readFileSync(shareFile, 'utf8'));
  for (const run of manifest.runs) run.manifestSha256 = hash(path.join(dir, 'runs', run.runId, 'manifest.json'));
  writeFileSync(shareFile, JSON.stringify(manifest));
}

async function join(
  files: string[],
  dir: string,
  env = origin.env,
): Promise<{ code: number | null; doc: any; stdout: string; stderr: string; dir: string }> {
  const result = await runMain(['join', ...files, '--json'], dir, { ...env, ...GIT_IDENTITY });
  return { code: result.code, doc: result.stdout ? JSON.parse(result.stdout) : null, stdout: result.stdout, stderr: result.stderr, dir };
}

describe.concurrent('run --shard --export, then join', { timeout: 400_000 }, () => {
  let one: string;
  let two: string;
  beforeAll(async () => {
    // `small` writes the page as it must be; `big` (the second candidate, lucky with seed 1) too, with two padding
    // lines more: both pass, `small` is the smaller change.
    origin = makeProject({ config: { agents: { small: commandAgent('implement'), big: commandAgent('seeded', '1') } } });
    exports = tempDir('elenchos-exports-');
    const made: string[] = [];
    const keep = (root: string) => (made.push(root), root);
    [one, two] = await Promise.all([share(1, clone(keep)), share(2, clone(keep))]);
    for (const root of made) expect(processesInside(root), `processes left in ${root}`).toEqual([]);
  }, 400_000);

  it('two shares from two clones, joined in a third: VERIFIED, the rule picks small after re-verifying it there, apply latest --commit takes it', async (ctx) => {
    const watch = leftoversOf(ctx);
    const j = await join([one, two], clone(watch));
    expect(j.code, j.stderr).toBe(0);
    expect(j.doc.problems).toEqual([]);
    expect(j.doc.shares.map((s: any) => [s.share.index, s.status])).toEqual([
      [1, 'accepted'],
      [2, 'accepted'],
    ]);
    const [run] = j.doc.runs;
    expect(run.state).toBe('VERIFIED');
    expect(run.winner.name).toBe('small');
    expect(run.winner.reason).toMatch(/smallest change.*re-verified here$/);
    expect(run.join.tried).toEqual(['small']);
    const byName = Object.fromEntries(run.candidates.map((c: any) => [c.name, c]));
    expect(byName.small).toMatchObject({ state: 'VERIFIED', dir: 'candidates/small', joined: { claimed: 'VERIFIED', reverified: true } });
    expect(byName.big).toMatchObject({ state: 'STOPPED', joined: { claimed: 'VERIFIED', reverified: false } });
    expect(byName.big.message).toContain('not re-verified: small passed here first');
    // The verdict was made here: the replay's own run is sealed in the joined run, its agent the replay.
    const runDir = path.join(j.dir, '.elenchos/runs', run.runId);
    const replayed = JSON.parse(readFileSync(path.join(runDir, 'candidates/small/run.json'), 'utf8'));
    expect(replayed).toMatchObject({ state: 'VERIFIED', tools: { agent: 'replay' }, replay: { candidate: 'small', attempt: 1 } });
    expect(replayed.workspace.base).toBe(gitSync(j.dir, 'rev-parse', 'HEAD').trim());
    // Both shares' evidence is imported inside the joined run, sealed with it.
    expect(readdirSync(path.join(runDir, 'shares')).sort()).toEqual(['1-of-2', '2-of-2']);
    expect((await runMain(['evidence', 'verify', run.runId], j.dir, origin.env)).code).toBe(0);
    expect((await runMain(['show', run.runId], j.dir, origin.env)).stdout).toContain('winner: small');
    const applied = await runMain(['apply', 'latest', '--commit'], j.dir, { ...origin.env, ...GIT_IDENTITY });
    expect(applied.code, applied.stderr).toBe(0);
    expect(readFileSync(path.join(j.dir, 'page.html'), 'utf8')).toBe(GOOD);
    expect(gitSync(j.dir, 'log', '-1', '--format=%B')).toContain(`Elenchos-Run: ${run.runId}-small`);
    expect(leakedWorktrees(j.dir)).toEqual([]);
    // The join's verdict, signed by another job (the workflow's publish), checks like any attestation.
    const keys = tempDir('elenchos-keys-');
    expect((await runMain(['attest', 'keygen', '--out', keys], j.dir, origin.env)).code).toBe(0);
    const verdict = path.join(keys, 'join.json');
    writeFileSync(verdict, j.stdout);
    const att = path.join(keys, 'join.att.json');
    const signed = await runMain(
      ['attest', 'sign', verdict, '--attest', att, '--attest-key', path.join(keys, 'elenchos-attest.key')],
      j.dir,
      origin.env,
    );
    expect(signed.code, signed.stderr).toBe(0);
    expect(signed.stderr).toContain('PASSED');
    const base = gitSync(j.dir, 'rev-parse', 'HEAD~1').trim();
    const checked = await runMain(
      ['attest', 'verify', att, '--key', path.join(keys, 'elenchos-attest.pub'), '--commit', base, '--verdict', verdict],
      j.dir,
      origin.env,
    );
    expect(checked.code, checked.stdout + checked.stderr).toBe(0);
  });

  it('an export altered after it was written is named tampered and never chosen; the other share still wins (exit 4)', async (ctx) => {
    const watch = leftoversOf(ctx);
    // The forger swaps small's stored change for one that passes nothing, leaving the manifests as they were.
    const forged = alter(one, (dir) => {
      const [runId] = readdirSync(path.join(dir, 'runs'));
      const patch = path.join(dir, 'runs', runId!, 'candidates/small/attempts/01/workspace/diff.patch');
      writeFileSync(patch, readFileSync(patch, 'utf8').replace('Buy milk', 'Buy beer'));
    });
    const j = await join([forged, two], clone(watch));
    expect(j.code, j.stderr).toBe(4);
    expect(j.doc.problems.join('\n')).toMatch(
      /altered-.*: run \S+ \(tasks\/add-task\.json\): is tampered: .*modified: candidates\/small\/attempts\/01\/workspace\/diff\.patch/,
    );
    const [run] = j.doc.runs;
    expect(run.state).toBe('VERIFIED');
    expect(run.winner.name).toBe('big');
    const small = run.candidates.find((c: any) => c.name === 'small');
    expect(small).toMatchObject({ state: 'ERROR', reason: 'SHARES_REJECTED' });
    expect(small.message).toMatch(/share 1\/2 rejected/);
    // The joined run reads like any: its seal holds, show and the report take it, the rejected one has no folder.
    const sealed = await runMain(['evidence', 'verify', run.runId], j.dir, origin.env);
    expect(sealed.code, sealed.stdout + sealed.stderr).toBe(0);
    expect((await runMain(['show', run.runId], j.dir, origin.env)).stdout).toMatch(
      /── candidate small ──\s+\(never started, or its run\.json is missing\)/,
    );
    expect((await runMain(['report', run.runId], j.dir, origin.env)).code).toBe(0);
  });

  it('a share that says VERIFIED of a change that does not pass cannot win by saying so: re-verified here, it FAILS, and the next by the rule wins', async (ctx) => {
    const watch = leftoversOf(ctx);
    // A forger with the export in hand and no key to fear: a change that passes nothing, and every seal recomputed.
    const forged = alter(one, (dir) => {
      const [runId] = readdirSync(path.join(dir, 'runs'));
      const patch = path.join(dir, 'runs', runId!, 'candidates/small/attempts/01/workspace/diff.patch');
      writeFileSync(patch, readFileSync(patch, 'utf8').replace('Buy milk', 'Buy beer'));
      reseal(dir);
    });
    const j = await join([forged, two], clone(watch));
    expect(j.code, j.stderr).toBe(0);
    expect(j.doc.problems).toEqual([]);
    const [run] = j.doc.runs;
    expect(run.join.tried).toEqual(['small', 'big']);
    expect(run.winner.name).toBe('big');
    expect(run.winner.reason).toMatch(/^claimed VERIFIED but not VERIFIED here: small \(FAILED PRODUCT_FAILURE\); .*re-verified here$/);
    const small = run.candidates.find((c: any) => c.name === 'small');
    expect(small).toMatchObject({ state: 'FAILED', reason: 'PRODUCT_FAILURE', joined: { claimed: 'VERIFIED', reverified: true } });
    expect(small.criteria).toEqual([
      { id: 'AC-001', status: 'PASS' },
      { id: 'AC-002', status: 'FAIL' },
    ]);
  });

  it('with ELENCHOS_SIGNING_KEY on every machine, a share manifest edited in transit is named tampered', async (ctx) => {
    const watch = leftoversOf(ctx);
    const env = { ...origin.env, ELENCHOS_SIGNING_KEY: 'k'.repeat(32) };
    const signed = async (i: number) => {
      const dir = clone(watch);
      const file = path.join(exports, `signed-${i}.tar.gz`);
      const r = await runMain(['run', 'tasks/add-task.json', '--agents', 'small,big', '--shard', `${i}/2`, '--export', file], dir, env);
      expect(r.code, r.stderr).toBe(0);
      return file;
    };
    const [a, b] = await Promise.all([signed(1), signed(2)]);
    const edited = alter(a, (dir) => {
      const file = path.join(dir, 'elenchos-share.json');
      const manifest = JSON.parse(readFileSync(file, 'utf8'));
      manifest.host = 'somewhere-else';
      writeFileSync(file, JSON.stringify(manifest));
    });
    const result = await runMain(['join', edited, b, '--json'], clone(watch), env);
    expect(result.code).toBe(4);
    const doc = JSON.parse(result.stdout);
    expect(doc.problems.join('\n')).toMatch(/is tampered: elenchos-share\.json does not match its signature/);
    expect(doc.runs[0].winner.name).toBe('big');
    // An unsigned share is refused where a key is set.
    const unsigned = await runMain(['join', one, b, '--json'], clone(watch), env);
    expect(JSON.parse(unsigned.stdout).problems.join('\n')).toMatch(/is not signed, but ELENCHOS_SIGNING_KEY is set here/);
  });

  it('one share holding the whole plan (1/1) joins alone: both candidates come from one run folder, imported once', async (ctx) => {
    const watch = leftoversOf(ctx);
    const dir = clone(watch);
    const whole = path.join(exports, 'whole.tar.gz');
    const r = await runMain(['run', 'tasks/add-task.json', '--agents', 'small,big', '--shard', '1/1', '--export', whole], dir, origin.env);
    expect(r.code, r.stderr).toBe(0);
    const j = await join([whole], clone(watch));
    expect(j.code, j.stderr).toBe(0);
    expect(j.doc.runs[0].winner.name).toBe('small');
    expect(readdirSync(path.join(j.dir, '.elenchos/runs', j.doc.runs[0].runId, 'shares'))).toEqual(['1-of-1']);
  });

  it('a share from another commit is named and never chosen', async (ctx) => {
    const watch = leftoversOf(ctx);
    const moved = clone(watch);
    writeFileSync(path.join(moved, 'NOTES.md'), 'a later commit\n');
    gitSync(moved, 'add', 'NOTES.md');
    gitSync(moved, 'commit', '-qm', 'later');
    const foreign = await share(1, moved);
    const j = await join([foreign, two], clone(watch));
    expect(j.code).toBe(4);
    expect(j.doc.problems.join('\n')).toMatch(/is from another commit/);
    expect(j.doc.runs[0].winner.name).toBe('big');
  });

  it('a share given twice is used from neither copy; a share claiming another place is named; with only bad shares there is no winner', async (ctx) => {
    const watch = leftoversOf(ctx);
    const twice = await join([one, two, two], clone(watch));
    expect(twice.code).toBe(4);
    expect(twice.doc.problems.filter((p: string) => p.includes('given 2 times'))).toHaveLength(2);
    expect(twice.doc.runs[0].winner.name).toBe('small');
    // Share 2's runs, relabelled as share 1 of 2: its place holds `small`, and `big` is not its to report.
    const misplaced = alter(two, (dir) => {
      const file = path.join(dir, 'elenchos-share.json');
      const manifest = JSON.parse(readFileSync(file, 'utf8'));
      manifest.share.index = 1;
      writeFileSync(file, JSON.stringify(manifest));
    });
    const j = await join([misplaced], clone(watch));
    expect(j.code).toBe(4);
    expect(j.doc).toBeNull();
    expect(j.stderr).toMatch(/join refused: no share can be used \(.*claims a place in the plan it does not have/);
  });
});

describe('shares of plain runs (no best-of)', { timeout: 400_000 }, () => {
  it('two tasks split over two clones, each a plain run, join as one candidate each and both end VERIFIED', async (ctx) => {
    const watch = leftoversOf(ctx);
    const plain = makeProject({ files: { ...FORM_TASK, ...TITLE_TASK }, config: { tasks: ['tasks/form.json', 'tasks/title.json'] } });
    const folder = tempDir('elenchos-exports-');
    const files = await Promise.all(
      [1, 2].map(async (i) => {
        const dir = clone(watch, plain.root);
        const file = path.join(folder, `plain-${i}.tar.gz`);
        // As a Kubernetes Indexed Job runs it: the share from JOB_COMPLETION_INDEX (0-based), the total given.
        const r = await runMain(['run', '--all', '--shard', 'auto/2', '--export', file, '--json'], dir, {
          ...plain.env,
          JOB_COMPLETION_INDEX: String(i - 1),
        });
        expect(r.code, r.stderr).toBe(0);
        // Share i holds task i of the sorted list: a plain run, no candidates.
        expect(JSON.parse(r.stdout).runs.map((run: any) => [run.task.file, run.candidates])).toEqual([
          [i === 1 ? 'tasks/form.json' : 'tasks/title.json', undefined],
        ]);
        return file;
      }),
    );
    const j = await join(files, clone(watch, plain.root), plain.env);
    expect(j.code, j.stderr).toBe(0);
    expect(j.doc.runs.map((r: any) => [r.task.file, r.state, r.winner?.name])).toEqual([
      ['tasks/form.json', 'VERIFIED', 'default'],
      ['tasks/title.json', 'VERIFIED', 'default'],
    ]);
    expect(j.doc.group).toMatchObject({ kind: 'join', tasks: 2 });
  });
});

describe('join refuses what it cannot open', () => {
  it('exits 4 naming each export when none can be used, and leaves no evidence', async (ctx) => {
    const watch = leftoversOf(ctx);
    const p = makeProject();
    watch(p.root);
    const dir = tempDir('elenchos-junk-');
    mkdirSync(path.join(dir, 'x'));
    writeFileSync(path.join(dir, 'x', 'hello.txt'), 'hi\n');
    const junk = path.join(dir, 'junk.tar.gz');
    create({ gzip: true, file: junk, cwd: dir, sync: true }, ['x']);
    const result = await runMain(['join', junk, 'missing.tar.gz'], p.root, p.env);
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/junk\.tar\.gz: holds "x\/", outside elenchos-share\.json and runs\//);
    expect(result.stderr).toMatch(/missing\.tar\.gz: is not a readable tar\.gz/);
    expect(existsSync(path.join(p.root, '.elenchos/runs'))).toBe(false);
  });
});
