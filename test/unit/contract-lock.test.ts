// The contract lock on a real directory: what it hashes, and every way it notices a change.
import { afterAppStart } from '../../src/core/run/checks.js';
import { runsNextDevAt } from '../../src/core/app/next-dev-origin.js';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  lockContract,
  onlyToolConfigsChanged,
  statContract,
  touchedBetween,
  verifyContract,
} from '../../src/core/lock/contract-lock.js';
import { sha256 } from '../../src/util/sha256.js';
import { tempDir, writeFiles } from '../helpers/temp.js';

const TASK = '{ "id": "t", "b": [2, {"y": 1, "x": null}], "a": "é" }';

function project(extra: Record<string, string> = {}) {
  const root = tempDir();
  writeFiles(root, {
    'tasks/t.json': TASK,
    'tests/t_test.md': '## One\n',
    'tests/h.md': 'helper\n',
    '.testmuai/variables/v.json': '{}',
    ...extra,
  });
  return root;
}

describe('canonicalJson and sha256', () => {
  it.each([
    [{ b: 1, a: [3, { d: null, c: 'x' }] }, '{"a":[3,{"c":"x","d":null}],"b":1}'],
    [[], '[]'],
    [{}, '{}'],
    ['s"', '"s\\""'],
    [1.5, '1.5'],
    [{ B: 1, a: 2, A: 3 }, '{"A":3,"B":1,"a":2}'],
  ])('%j → %s', (value, text) => {
    expect(canonicalJson(value)).toBe(text);
  });

  it('hashes as sha256 hex', () => {
    expect(sha256('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256(Buffer.from('abc'))).toBe(sha256('abc'));
  });
});

describe('lockContract', () => {
  it('locks the task twice (bytes, canonical JSON), the test and each extra input with its role', async () => {
    const root = project();
    const locked = await lockContract({
      root,
      taskLabel: 'tasks/t.json',
      testLabel: 'tests/t_test.md',
      extra: ['tests/h.md', '.testmuai/variables/v.json'],
    });
    expect(locked).toEqual([
      { path: 'tasks/t.json', sha256: sha256(TASK), role: 'task' },
      { path: 'tasks/t.json', sha256: sha256(canonicalJson(JSON.parse(TASK))), role: 'task-canonical' },
      { path: 'tests/t_test.md', sha256: sha256('## One\n'), role: 'test' },
      { path: 'tests/h.md', sha256: sha256('helper\n'), role: 'import' },
      { path: '.testmuai/variables/v.json', sha256: sha256('{}'), role: 'variables' },
    ]);
    const spec = await lockContract({ root, taskLabel: 'tasks/t.json', testLabel: 'tests/t_test.md.spec.ts', extra: ['tests/h.md'] }).catch(
      () => null,
    );
    expect(spec).toBeNull(); // a missing test file is an error, never an empty lock
  });

  it.each([
    ['tests/t_test.md', 'tests/h.md', 'import'],
    ['tests/t_test.md', 'tasks/t.lock.json', 'test-lock'],
    ['tests/a.spec.ts', 'tasks/T.LOCK.JSON', 'test-lock'],
    ['tests/t_test.md', '.testmuai/variables/v.json', 'variables'],
    ['tests/a.spec.ts', '.testmuai/variables/v.json', 'variables'],
    ['tests/a.spec.ts', 'tests/h.md', 'spec'],
    ['tests/a.spec.ts', 'tests/x_test.md', 'spec'],
    ['tests/t_test.md', 'x/.testmuai/variables/v.json', 'import'],
  ])('test %s: extra input %s has the role %s', async (testLabel, extra, role) => {
    const root = project({
      'tests/a.spec.ts': 'test',
      'tasks/t.lock.json': '{}',
      'tasks/T.LOCK.JSON': '{}',
      'tests/x_test.md': '',
      'x/.testmuai/variables/v.json': '{}',
    });
    const locked = await lockContract({ root, taskLabel: 'tasks/t.json', testLabel, extra: [extra] });
    expect(locked[3]).toEqual({ path: extra, sha256: expect.stringMatching(/^[0-9a-f]{64}$/), role });
  });

  it('takes inputs up to the test-file limit (4 MB), and names a missing one by its repository path', async () => {
    const big = 'x'.repeat(2 * 1024 * 1024);
    const root = project({ 'tests/data.json': big });
    const locked = await lockContract({ root, taskLabel: 'tasks/t.json', testLabel: 'tests/t_test.md', extra: ['tests/data.json'] });
    expect(locked[3]).toEqual({ path: 'tests/data.json', sha256: sha256(big), role: 'import' });
    expect(await verifyContract(locked, { label: 'worktree', root, currentExtra: ['tests/data.json'] })).toEqual([]);
    await expect(lockContract({ root, taskLabel: 'tasks/t.json', testLabel: 'tests/gone_test.md', extra: [] })).rejects.toThrow(
      /^tests\/gone_test\.md: cannot read/,
    );
  });

  it('an extra input of a non-Kane test is a spec import', async () => {
    const root = project({ 'tests/a.spec.ts': 'test' });
    const locked = await lockContract({ root, taskLabel: 'tasks/t.json', testLabel: 'tests/a.spec.ts', extra: ['tests/h.md'] });
    expect(locked.map((f) => f.role)).toEqual(['task', 'task-canonical', 'test', 'spec']);
  });
});

describe('verifyContract', () => {
  const lock = (root: string) => lockContract({ root, taskLabel: 'tasks/t.json', testLabel: 'tests/t_test.md', extra: ['tests/h.md'] });
  const place = (root: string, currentExtra = ['tests/h.md']) => ({ label: 'worktree', root, currentExtra });

  it('is empty while nothing changed', async () => {
    const root = project();
    expect(await verifyContract(await lock(root), place(root))).toEqual([]);
  });

  it.each([
    [
      'a changed test',
      (root: string) => writeFileSync(path.join(root, 'tests/t_test.md'), '## Easier\n'),
      ['tests/t_test.md changed in the worktree'],
    ],
    [
      'a reformatted task (same canonical JSON)',
      (root: string) => writeFileSync(path.join(root, 'tasks/t.json'), JSON.stringify(JSON.parse(TASK))),
      ['tasks/t.json changed in the worktree'],
    ],
    ['a deleted helper', (root: string) => rmSync(path.join(root, 'tests/h.md')), ['tests/h.md was deleted in the worktree']],
    [
      'a helper replaced by a folder',
      (root: string) => {
        rmSync(path.join(root, 'tests/h.md'));
        mkdirSync(path.join(root, 'tests/h.md'));
      },
      ['tests/h.md was replaced in the worktree by something that is not a readable file'],
    ],
    [
      'several changes at once, in lock order',
      (root: string) => {
        writeFileSync(path.join(root, 'tests/h.md'), 'other\n');
        writeFileSync(path.join(root, 'tasks/t.json'), '{}');
      },
      ['tasks/t.json changed in the worktree', 'tests/h.md changed in the worktree'],
    ],
  ])('names %s', async (_what, change, problems) => {
    const root = project();
    const locked = await lock(root);
    change(root);
    expect(await verifyContract(locked, place(root))).toEqual(problems);
  });

  it('names an input that appeared since the lock', async () => {
    const root = project();
    const locked = await lock(root);
    expect(await verifyContract(locked, place(root, ['tests/h.md', '.testmuai/variables/new.json']))).toEqual([
      '.testmuai/variables/new.json appeared in the worktree (the verifier would read it)',
    ]);
  });
});

describe('statContract / touchedBetween', () => {
  it('sees a file rewritten with the same bytes (ctime moves), and a deleted one', async () => {
    const root = project();
    const locked = await lockContract({ root, taskLabel: 'tasks/t.json', testLabel: 'tests/t_test.md', extra: ['tests/h.md'] });
    const before = await statContract(locked, root);
    expect([...before.keys()]).toEqual(['tasks/t.json', 'tests/t_test.md', 'tests/h.md']);
    expect(touchedBetween(before, await statContract(locked, root))).toEqual([]);
    // ctime has nanosecond resolution here, but wait until it visibly moves rather than hoping it does.
    const stamp = before.get('tests/t_test.md');
    let after = before;
    while (after.get('tests/t_test.md') === stamp) {
      writeFileSync(path.join(root, 'tests/t_test.md'), '## One\n');
      after = await statContract(locked, root);
    }
    rmSync(path.join(root, 'tests/h.md'));
    after = await statContract(locked, root);
    expect(after.get('tests/h.md')).toBe('missing');
    expect(touchedBetween(before, after)).toEqual(['tests/t_test.md', 'tests/h.md']);
  });
});

describe('onlyToolConfigsChanged', () => {
  it.each([
    [['tsconfig.json changed in the worktree'], true],
    [['apps/web/tsconfig.json changed in the worktree', 'tsconfig.app.json'], true],
    [['jsconfig.json'], true],
    // The task, the test, what the test reads, a deleted or added file, the main checkout: tampering.
    [['tsconfig.json changed in the worktree', 'tests/add_test.md changed in the worktree'], false],
    [['tests/add.spec.ts'], false],
    [['tsconfig.json was deleted in the worktree'], false],
    [['tsconfig.json changed in the main checkout'], false],
    [['.testmuai/variables/x.json appeared in the worktree (the verifier would read it)'], false],
    [['tests/tsconfig.json.ts'], false],
    [[], false],
  ])('%j → %s', (problems, expected) => {
    expect(onlyToolConfigsChanged(problems)).toBe(expected);
  });
});

describe('the CONTRACT_CHANGED advice for a rewritten tool config', () => {
  it('names Next.js and NODE_ENV only when the app is next dev', async () => {
    const [, , plain] = afterAppStart('the contract changed', ['tsconfig.json changed in the worktree']);
    expect(plain).not.toMatch(/Next|NODE_ENV/);
    expect(plain).toContain('a dev server may rewrite such a file');
    const [, , next] = afterAppStart('the contract changed', ['tsconfig.json changed in the worktree'], true);
    expect(next).toContain('unset NODE_ENV');
    const root = tempDir();
    writeFiles(root, { 'package.json': '{ "scripts": { "dev": "next dev --turbopack", "vite": "vite dev" } }' });
    expect(await runsNextDevAt(root, 'npm run dev -- --port {port}')).toBe(true);
    expect(await runsNextDevAt(root, 'npm run vite -- --port {port}')).toBe(false);
    expect(await runsNextDevAt(root, undefined)).toBe(false);
  });
});
