// The verifying join behind `merge`: each way a set of shard outputs can fail to be one whole verification
// (missing, duplicated, mixed commits or inputs, a task reported twice or never) is refused by name.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ShardSetError } from '../../src/errors.js';
import { mergeShards } from '../../src/core/verify/merge.js';
import { SHARD_FORMAT_VERSION, type ShardMetadata } from '../../src/core/verify/shard-metadata-schema.js';
import { joinShards, type ShardOutput } from '../../src/core/verify/verifying-join.js';
import { tempDir } from '../helpers/temp.js';

const COMMIT = 'a'.repeat(40);
const OTHER = 'b'.repeat(40);
const TASKS = ['tasks/a.json', 'tasks/b.json', 'tasks/c.json'];
const sha = (c: string) => c.repeat(64);
const INPUTS = [
  { path: 'elenchos.config.json', role: 'config' as const, sha256: sha('0') },
  { path: 'tasks/a.json', role: 'task' as const, sha256: sha('1') },
  { path: 'tasks/b.json', role: 'task' as const, sha256: sha('2') },
  { path: 'tasks/c.json', role: 'task' as const, sha256: sha('3') },
];

function metadata(index: number, total: number, over: Partial<ShardMetadata> = {}): ShardMetadata {
  return {
    formatVersion: SHARD_FORMAT_VERSION,
    elenchos: '0.1.0',
    shard: { index, total },
    commit: COMMIT,
    tree: 'c'.repeat(40),
    tasks: TASKS,
    plan: TASKS.filter((_, i) => i % total === index - 1),
    inputs: INPUTS,
    ...over,
  };
}

/** Shard i of n that reported exactly its plan, each run of COMMIT with the declared contract. */
function shard(index: number, total: number, over: Partial<ShardMetadata> = {}): ShardOutput {
  const m = metadata(index, total, over);
  const reported = m.plan.map((file) => ({
    file,
    base: m.commit,
    contract: INPUTS.filter((i) => i.path === file).map((i) => ({ path: i.path, role: 'task', sha256: i.sha256 })),
  }));
  return { file: `shard-${index}.json`, metadata: m, reported };
}

const problem = (outputs: ShardOutput[]) => {
  const result = joinShards(outputs);
  return result.ok ? null : result.problem;
};

describe('joinShards', () => {
  it('accepts exactly shards 1..n of one commit and inputs, every planned task reported once, in any order', () => {
    expect(joinShards([shard(2, 3), shard(3, 3), shard(1, 3)])).toEqual({ ok: true });
    expect(joinShards([shard(1, 1)])).toEqual({ ok: true });
    // More shards than tasks: the empty ones are still needed, and still count.
    expect(joinShards([1, 2, 3, 4, 5].map((i) => shard(i, 5)))).toEqual({ ok: true });
  });

  it('a missing shard is named (the issue: one task, three shards, two empty outputs)', () => {
    expect(problem([shard(1, 3), shard(3, 3)])).toBe('shard 2/3 missing: its output was not given (did that job fail before writing it?)');
    const one = { ...metadata(1, 3), tasks: ['tasks/a.json'], plan: [] as string[] };
    const empties = [2, 3].map((i) => ({ file: `s${i}.json`, metadata: { ...one, shard: { index: i, total: 3 } }, reported: [] }));
    expect(problem(empties)).toBe('shard 1/3 missing: its output was not given (did that job fail before writing it?)');
    expect(problem([shard(1, 4), shard(4, 4)])).toBe('shards 2/4, 3/4 missing: their outputs were not given');
    // Every shard present, but split from nothing: "0/0 VERIFIED" is refused, not passed.
    const nothing = { ...metadata(1, 2), tasks: [] as string[], plan: [] as string[], inputs: [] };
    expect(
      problem([1, 2].map((i) => ({ file: `s${i}.json`, metadata: { ...nothing, shard: { index: i, total: 2 } }, reported: [] }))),
    ).toBe('the shards were split from an empty task list: nothing was verified (check "tasks" in the config)');
  });

  it('a duplicated shard, and shards of two splits', () => {
    expect(problem([shard(1, 2), shard(2, 2), { ...shard(2, 2), file: 'again.json' }])).toBe(
      'shard 2/2 given 2 times (shard-2.json, again.json)',
    );
    expect(problem([shard(1, 2), shard(2, 3)])).toBe(
      'the shards are of different splits (shard-1.json is shard 1/2, shard-2.json is shard 2/3); merge the outputs of one verify matrix',
    );
  });

  it('a shard of another commit, or a run inside a shard that verified another commit', () => {
    expect(problem([shard(1, 3, { commit: OTHER }), shard(2, 3), shard(3, 3)])).toBe(
      'shard 1/3 is for commit bbbbbbbbbbbb…, the others for aaaaaaaaaaaa…',
    );
    expect(problem([shard(1, 2, { commit: null }), shard(2, 2)])).toContain('shard 1/2 (shard-1.json) has no commit');
    expect(problem([shard(1, 2), shard(2, 2, { tree: 'd'.repeat(40) })])).toBe(
      'shard 2/2 is for tree dddddddddddd…, the others for cccccccccccc…',
    );
    const spliced = shard(2, 2);
    spliced.reported = [{ ...spliced.reported[0]!, base: OTHER }];
    expect(problem([shard(1, 2), spliced])).toBe(
      "shard 2/2: the run of tasks/b.json verified commit bbbbbbbbbbbb…, not the shard's aaaaaaaaaaaa…",
    );
  });

  it('a shard with other inputs: a config, a contract, a task list of its own; a run that used another contract', () => {
    const config = INPUTS.map((i) => (i.role === 'config' ? { ...i, sha256: sha('9') } : i));
    expect(problem([shard(1, 2), shard(2, 2, { inputs: config })])).toBe(
      'shard 2/2 used other inputs than the others (elenchos.config.json has sha256 999999999999… there, 000000000000… in the others)',
    );
    const lock = [...INPUTS, { path: 'tasks/a.lock.json', role: 'test-lock' as const, sha256: sha('4') }];
    // The odd one out is the shard the others disagree with, wherever it stands.
    expect(problem([shard(1, 3, { inputs: lock }), shard(2, 3), shard(3, 3)])).toBe(
      'shard 1/3 used other inputs than the others (tasks/a.lock.json only there)',
    );
    expect(problem([shard(1, 2), shard(2, 2, { inputs: INPUTS.slice(0, 3) })])).toBe(
      'shard 2/2 used other inputs than the others (tasks/c.json missing there)',
    );
    const moreTasks = [...TASKS, 'tasks/d.json'];
    expect(problem([shard(1, 2), shard(2, 2, { tasks: moreTasks })])).toBe(
      'shard 2/2 was split from other task files than the others (tasks/d.json is only in its list)',
    );
    const swapped = shard(1, 2);
    swapped.reported = [
      { ...swapped.reported[0]!, contract: [{ path: 'tasks/a.json', role: 'task', sha256: sha('f') }] },
      swapped.reported[1]!,
    ];
    expect(problem([swapped, shard(2, 2)])).toBe(
      'shard 1/2: the run of tasks/a.json used tasks/a.json with sha256 ffffffffffff…, not the 111111111111… the shard declares',
    );
  });

  it('plans that overlap or leave a task out', () => {
    expect(problem([shard(1, 2, { plan: ['tasks/a.json', 'tasks/b.json', 'tasks/c.json'] }), shard(2, 2)])).toBe(
      'tasks/b.json is planned by both shard 1/2 and shard 2/2',
    );
    expect(problem([shard(1, 2, { plan: ['tasks/a.json'] }), shard(2, 2)])).toBe('tasks/c.json is planned by no shard');
    expect(problem([shard(1, 2, { plan: ['tasks/a.json', 'tasks/c.json', 'tasks/z.json'] }), shard(2, 2)])).toBe(
      'shard 1/2 plans tasks/z.json, which is not in the task list it was split from',
    );
  });

  it('a task reported twice, reported by a shard that did not plan it, or planned and never reported', () => {
    const twice = shard(1, 2);
    twice.reported = [...twice.reported, twice.reported[0]!];
    expect(problem([twice, shard(2, 2)])).toBe('tasks/a.json reported twice (both by shard 1/2)');
    const stray = shard(2, 2);
    stray.reported = [...stray.reported, { file: 'tasks/a.json', base: COMMIT, contract: [] }];
    expect(problem([shard(1, 2), stray])).toBe('tasks/a.json reported twice (by shard 1/2 and shard 2/2)');
    const unplanned = shard(2, 2);
    unplanned.reported = [{ file: 'tasks/a.json', base: COMMIT, contract: [] }];
    const short = shard(1, 2);
    short.reported = short.reported.slice(1);
    expect(problem([short, unplanned])).toBe('shard 2/2 reported tasks/a.json, which it did not plan');
    expect(problem([short, shard(2, 2)])).toBe(
      'tasks/a.json planned for shard 1/2 was not reported (the shard ended before it: run that shard again)',
    );
  });
});

describe('mergeShards reads the outputs', () => {
  const write = (dir: string, name: string, value: unknown) => {
    writeFileSync(path.join(dir, name), JSON.stringify(value));
    return name;
  };
  const refusedRuns = (m: ShardMetadata) => m.plan.map((file) => ({ file, refused: `${file}: invalid task contract` }));

  it('joins refused tasks too, and describes the result as shard 1/1 of the same commit and inputs', async () => {
    const dir = tempDir();
    const files = [1, 2].map((i) => write(dir, `s${i}.json`, { metadata: metadata(i, 2), runs: refusedRuns(metadata(i, 2)) }));
    const merged = await mergeShards(files, dir);
    expect(merged.tasks.map((t) => t.file)).toEqual(TASKS);
    expect(merged.exitCode).toBe(3);
    expect(merged.metadata).toMatchObject({ shard: { index: 1, total: 1 }, plan: TASKS, commit: COMMIT, inputs: INPUTS, mergedShards: 2 });
  });

  it('refuses with exit 4: an output without metadata (say: verify again), a newer format, a join that fails', async () => {
    const dir = tempDir();
    const old = write(dir, 'old.json', { runs: [] });
    await expect(mergeShards([old], dir)).rejects.toThrow(
      new ShardSetError(
        'merge refused: old.json has no shard metadata (written by an older elenchos verify); run elenchos verify --shard i/n --json again with this version',
      ),
    );
    const newer = write(dir, 'new.json', { metadata: { ...metadata(1, 1), formatVersion: SHARD_FORMAT_VERSION + 1, more: 1 }, runs: [] });
    await expect(mergeShards([newer], dir)).rejects.toThrow(
      `new.json is shard format ${SHARD_FORMAT_VERSION + 1}, newer than this elenchos reads`,
    );
    const one = write(dir, 's1.json', { metadata: metadata(1, 2), runs: refusedRuns(metadata(1, 2)) });
    const error = await mergeShards([one], dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ShardSetError);
    expect((error as ShardSetError).exitCode).toBe(4);
    expect((error as Error).message).toBe(
      'merge refused: shard 2/2 missing: its output was not given (did that job fail before writing it?)',
    );
    const bad = write(dir, 'bad.json', { metadata: { ...metadata(1, 1), shard: { index: 2, total: 1 } }, runs: [] });
    await expect(mergeShards([bad], dir)).rejects.toThrow('bad.json: metadata is not the shard metadata of elenchos verify --json');
  });

  it('an empty or cut-off output (a shard cancelled while verify wrote it) is an incomplete set: exit 4 naming the file', async () => {
    const dir = tempDir();
    const whole = `${JSON.stringify({ metadata: metadata(1, 1), runs: refusedRuns(metadata(1, 1)) }, null, 2)}\n`;
    writeFileSync(path.join(dir, 'whole.json'), whole);
    expect((await mergeShards(['whole.json'], dir)).tasks).toHaveLength(TASKS.length);
    const refusal = async (name: string, text: string) => {
      writeFileSync(path.join(dir, name), text);
      const error = await mergeShards([name], dir).catch((e: unknown) => e);
      expect(error, name).toBeInstanceOf(ShardSetError);
      expect((error as ShardSetError).exitCode).toBe(4);
      return (error as Error).message;
    };
    const nothing = "is empty: that shard's verify wrote no output (cancelled or failed?); run that shard again";
    expect(await refusal('empty.json', '')).toBe(`merge refused: empty.json ${nothing}`);
    expect(await refusal('blank.json', '\n')).toBe(`merge refused: blank.json ${nothing}`);
    const cut = "that shard's verify did not finish writing it (cancelled?); run that shard again";
    expect(await refusal('half.json', whole.slice(0, Math.floor(whole.length / 2)))).toMatch(
      /^merge refused: half\.json:\d+:\d+: invalid JSON: [^\n]+: that shard's verify did not finish writing it/,
    );
    expect(await refusal('no-last-brace.json', whole.slice(0, -2))).toMatch(/^merge refused: no-last-brace\.json:\d+:\d+: invalid JSON: /);
    expect(await refusal('no-last-brace.json', whole.slice(0, -2))).toContain(cut);
    // The refusal names the cut-off file among whole ones, before any join check.
    writeFileSync(path.join(dir, 's2.json'), whole.slice(0, 10));
    const mixed = await mergeShards(['whole.json', 's2.json'], dir).catch((e: unknown) => e);
    expect((mixed as Error).message).toMatch(/^merge refused: s2\.json:\d+:\d+: invalid JSON/);
  });

  // The last round: shard.total 5,000,000,000 was a RangeError and a stack trace (exit 2); 2,000,000 was
  // refused only after 2-4 s and 357 MB of listing the missing shards; 10,000,000 took 1.46 GB.
  it('a shard total past 1000 is bad input (exit 3) before anything is counted; a missing list names ten shards at most', async () => {
    const dir = tempDir();
    for (const total of [5_000_000_000, 10_000_000, 2_000_000, 1001]) {
      const name = write(dir, `total-${total}.json`, { metadata: { ...metadata(1, 1), shard: { index: 1, total } }, runs: [] });
      const started = Date.now();
      const error = await mergeShards([name], dir).catch((e: unknown) => e);
      expect((error as { exitCode: number }).exitCode, String(total)).toBe(3);
      expect((error as { details: string[] }).details.join('\n'), String(total)).toMatch(/metadata: shard\.total: .*1000/);
      expect(Date.now() - started).toBeLessThan(1000);
    }
    const name = write(dir, 'of-1000.json', { metadata: metadata(1, 1000, { plan: TASKS.slice(0, 1) }), runs: [] });
    const error = await mergeShards([name], dir).catch((e: unknown) => e);
    expect((error as ShardSetError).exitCode).toBe(4);
    expect((error as Error).message).toBe(
      'merge refused: shards 2/1000, 3/1000, 4/1000, 5/1000, 6/1000, 7/1000, 8/1000, 9/1000, 10/1000, 11/1000 and 989 more missing: their outputs were not given',
    );
  });

  it('whole JSON that is not a verify output stays bad input (exit 3)', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'other.json'), '{ "hello": 1 }\n');
    const error = await mergeShards(['other.json'], dir).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(ShardSetError);
    expect((error as { exitCode: number }).exitCode).toBe(3);
    expect((error as Error).message).toBe('other.json: (root): not the output of elenchos verify --json (no "runs" array)');
  });
});
