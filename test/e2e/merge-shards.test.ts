// `merge` is a verifying join: real `verify --shard i/n --json` outputs of a real repository merge into
// one result, and every broken set (missing, duplicated, other commit, other inputs, a task reported
// twice or never, an old or newer format, a forged commit) is refused with exit 4 and a line naming it.
// @module-tag slow
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHARD_AUTO_VARIABLES } from '../../src/core/verify/shard-ci.js';
import { runMain, type CliRun } from '../helpers/cli.js';
import { FORM_PAGE, FORM_TASK, KANE_CHECK_PAGE, makeProject, processesInside, TITLE_TASK } from '../helpers/project.js';
import { gitSync, tempDir } from '../helpers/temp.js';

let p: ReturnType<typeof makeProject>;
let dir: string;
const SHARD_1 = 'shard-1.json';
const SHARD_2 = 'shard-2.json';

/** Runs verify in the project and keeps its stdout as `name` (what the CI's upload step keeps). */
async function verifyShard(shard: string, name: string): Promise<void> {
  const result = await runMain(['verify', '--shard', shard, '--json'], p.root, p.env);
  expect(result.code, result.stderr).not.toBe(3);
  writeFileSync(path.join(dir, name), result.stdout);
}

const read = (name: string) => JSON.parse(readFileSync(path.join(dir, name), 'utf8'));
const write = (name: string, value: unknown) => writeFileSync(path.join(dir, name), JSON.stringify(value, null, 2));
const merge = (...names: string[]): Promise<CliRun> => runMain(['merge', ...names.map((n) => path.join(dir, n))], p.root);
/** A refusal: exit 4 and one line, nothing on stdout. */
const refused = (run: CliRun, line: string) => {
  expect(run.code, run.stderr).toBe(4);
  expect(run.stdout).toBe('');
  expect(run.stderr).toBe(`elenchos: merge refused: ${line}\n`);
};

beforeAll(async () => {
  // add-task (fails: the page lacks the milk), form and title; shard 1/2 plans add-task and title.
  p = makeProject({
    config: { verifier: KANE_CHECK_PAGE },
    files: {
      ...FORM_PAGE,
      ...FORM_TASK,
      ...TITLE_TASK,
    },
  });
  dir = tempDir();
  await verifyShard('1/2', SHARD_1);
  await verifyShard('2/2', SHARD_2);
  // Shard 2 again after another commit: the CI re-ran one job of the matrix on a newer push.
  writeFileSync(path.join(p.root, 'NOTES.md'), 'a later commit\n');
  gitSync(p.root, 'add', 'NOTES.md');
  gitSync(p.root, 'commit', '-qm', 'a later commit');
  await verifyShard('2/2', 'shard-2-later-commit.json');
  gitSync(p.root, 'reset', '-q', '--hard', 'HEAD~1');
  // Shard 2 again with a config edited on that machine (uncommitted): same commit, other inputs.
  const config = path.join(p.root, 'elenchos.config.json');
  const original = readFileSync(config, 'utf8');
  writeFileSync(config, original.replace('"maxVerifierRetries": 1', '"maxVerifierRetries": 0'));
  await verifyShard('2/2', 'shard-2-other-config.json');
  writeFileSync(config, original);
  // More shards than tasks: shard 4/4 has nothing to run, and still counts.
  await verifyShard('4/4', 'shard-4-of-4.json');
}, 400_000);

afterAll(() => {
  expect(processesInside(p.root), 'processes left').toEqual([]);
});

describe('elenchos merge of real shard outputs', () => {
  it('each output says which shard of which commit and inputs it is, and what it planned', async () => {
    const one = read(SHARD_1);
    const head = gitSync(p.root, 'rev-parse', 'HEAD').trim();
    const tasks = ['tasks/add-task.json', 'tasks/form.json', 'tasks/title.json'];
    expect(one.metadata).toMatchObject({
      formatVersion: 1,
      shard: { index: 1, total: 2 },
      commit: head,
      tree: gitSync(p.root, 'rev-parse', 'HEAD^{tree}').trim(),
      tasks,
      plan: ['tasks/add-task.json', 'tasks/title.json'],
    });
    expect(one.metadata.inputs.map((i: { path: string; role: string }) => [i.path, i.role])).toEqual([
      ['elenchos.config.json', 'config'],
      ['tasks/add-task.json', 'task'],
      ['tasks/form.json', 'task'],
      ['tasks/title.json', 'task'],
      ['tests/add-task_test.md', 'test'],
      ['tests/form_test.md', 'test'],
      ['tests/title_test.md', 'test'],
    ]);
    // The digest of the committed file's bytes (what `attest verify` will compare at that commit).
    const committed = gitSync(p.root, 'show', 'HEAD:elenchos.config.json');
    expect(one.metadata.inputs[0].sha256).toBe(createHash('sha256').update(committed).digest('hex'));
    expect(read(SHARD_2).metadata).toMatchObject({ shard: { index: 2, total: 2 }, commit: head, tasks, plan: ['tasks/form.json'] });
    expect(read(SHARD_2).metadata.inputs).toEqual(one.metadata.inputs);
    expect(read('shard-4-of-4.json')).toMatchObject({ metadata: { shard: { index: 4, total: 4 }, plan: [] }, runs: [] });
  });

  it('--shard auto takes the shard from the CI (Buildkite counts from 0), and without one exits 3', async () => {
    const none = Object.fromEntries([...SHARD_AUTO_VARIABLES, 'GITHUB_ACTIONS'].map((name) => [name, '']));
    const auto = await runMain(['verify', '--shard', 'auto', '--json'], p.root, {
      ...p.env,
      ...none,
      BUILDKITE_PARALLEL_JOB: '3',
      BUILDKITE_PARALLEL_JOB_COUNT: '4',
    });
    expect(auto.code, auto.stderr).toBe(0);
    expect(JSON.parse(auto.stdout)).toEqual(read('shard-4-of-4.json'));
    // A shard may have nothing to run; a whole verification of nothing is refused on every shard.
    expect(await runMain(['verify', '--shard', '2/2', '--json', 'nothing/*.json'], p.root, p.env)).toMatchObject({
      code: 3,
      stderr: expect.stringContaining('elenchos: no task contract matched nothing/*.json'),
    });
    const missing = await runMain(['verify', '--shard', 'auto'], p.root, { ...p.env, ...none });
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/^elenchos: --shard auto: no CI shard variable is set \(CI_NODE_INDEX, .*\); pass --shard i\/n\n$/);
  });

  it('shards 1..n of one commit and inputs merge into one result, and the merged output merges again', async () => {
    const merged = await merge(SHARD_2, SHARD_1);
    expect(merged.code, merged.stderr).toBe(1);
    expect(merged.stdout).toMatch(/FAILED PRODUCT_FAILURE +add-task[\s\S]*VERIFIED +form[\s\S]*VERIFIED +title[\s\S]*2\/3 VERIFIED/);
    const json = await runMain(['merge', path.join(dir, SHARD_1), path.join(dir, SHARD_2), '--json'], p.root);
    expect(json.code).toBe(1);
    const whole = JSON.parse(json.stdout);
    expect(whole.metadata).toMatchObject({ shard: { index: 1, total: 1 }, plan: read(SHARD_1).metadata.tasks, mergedShards: 2 });
    write('merged.json', whole);
    expect((await merge('merged.json')).code).toBe(1);
  });

  it("a missing shard (the job died before writing its output), including the issue's empty shards", async () => {
    refused(await merge(SHARD_1), 'shard 2/2 missing: its output was not given (did that job fail before writing it?)');
    refused(await merge('shard-4-of-4.json'), 'shards 1/4, 2/4, 3/4 missing: their outputs were not given');
  });

  it('a shard cancelled while verify wrote its output: an empty or cut-off file is exit 4 naming it, not bad input', async () => {
    writeFileSync(path.join(dir, 'empty.json'), '');
    refused(
      await merge(SHARD_1, 'empty.json'),
      `${path.join(dir, 'empty.json')} is empty: that shard's verify wrote no output (cancelled or failed?); run that shard again`,
    );
    const whole = readFileSync(path.join(dir, SHARD_2), 'utf8');
    writeFileSync(path.join(dir, 'cut.json'), whole.slice(0, Math.floor(whole.length / 2)));
    const cut = await merge(SHARD_1, 'cut.json');
    expect(cut.code, cut.stderr).toBe(4);
    expect(cut.stdout).toBe('');
    expect(cut.stderr).toMatch(
      new RegExp(
        `^elenchos: merge refused: ${path.join(dir, 'cut.json').replace(/[.]/g, '\\.')}:\\d+:\\d+: invalid JSON: [^\\n]*: that shard's verify did not finish writing it \\(cancelled\\?\\); run that shard again\\n$`,
      ),
    );
  });

  it('a duplicated shard, and shards of two splits', async () => {
    refused(await merge(SHARD_1, SHARD_1, SHARD_2), `shard 1/2 given 2 times (${path.join(dir, SHARD_1)}, ${path.join(dir, SHARD_1)})`);
    const mixed = await merge(SHARD_1, 'shard-4-of-4.json');
    expect(mixed.code, mixed.stderr).toBe(4);
    expect(mixed.stdout).toBe('');
    expect(mixed.stderr).toContain('merge refused: the shards are of different splits');
  });

  it('a shard of another commit, also when its metadata is rewritten to claim the right one', async () => {
    const head = read(SHARD_1).metadata.commit as string;
    const later = read('shard-2-later-commit.json');
    expect(later.metadata.commit).not.toBe(head);
    refused(
      await merge(SHARD_1, 'shard-2-later-commit.json'),
      `shard 2/2 is for commit ${later.metadata.commit.slice(0, 12)}…, the others for ${head.slice(0, 12)}…`,
    );
    write('forged.json', { ...later, metadata: { ...later.metadata, commit: head, tree: read(SHARD_1).metadata.tree } });
    refused(
      await merge(SHARD_1, 'forged.json'),
      `shard 2/2: the run of tasks/form.json verified commit ${later.metadata.commit.slice(0, 12)}…, not the shard's ${head.slice(0, 12)}…`,
    );
  });

  it('a shard with other inputs (a config edited on its machine)', async () => {
    const other = read('shard-2-other-config.json').metadata.inputs[0].sha256 as string;
    const usual = read(SHARD_1).metadata.inputs[0].sha256 as string;
    expect(other).not.toBe(usual);
    refused(
      await merge(SHARD_1, 'shard-2-other-config.json'),
      `shard 2/2 used other inputs than the others (elenchos.config.json has sha256 ${other.slice(0, 12)}… there, ${usual.slice(0, 12)}… in the others)`,
    );
  });

  it('a task reported twice, a planned task not reported', async () => {
    const one = read(SHARD_1);
    const two = read(SHARD_2);
    write('two-plus-title.json', { ...two, runs: [...two.runs, one.runs[1]] });
    refused(await merge(SHARD_1, 'two-plus-title.json'), 'tasks/title.json reported twice (by shard 1/2 and shard 2/2)');
    write('one-short.json', { ...one, runs: one.runs.slice(1) });
    refused(
      await merge('one-short.json', SHARD_2),
      'tasks/add-task.json planned for shard 1/2 was not reported (the shard ended before it: run that shard again)',
    );
  });

  it('an output of an older verify (no metadata) is refused with the fix; a newer format is refused', async () => {
    const { metadata, ...old } = read(SHARD_1);
    write('old.json', old);
    refused(
      await merge('old.json', SHARD_2),
      `${path.join(dir, 'old.json')} has no shard metadata (written by an older elenchos verify); run elenchos verify --shard i/n --json again with this version`,
    );
    write('newer.json', { ...read(SHARD_1), metadata: { ...metadata, formatVersion: 2 } });
    refused(
      await merge('newer.json', SHARD_2),
      `${path.join(dir, 'newer.json')} is shard format 2, newer than this elenchos reads (1); merge with the elenchos version that wrote it`,
    );
  });
});
