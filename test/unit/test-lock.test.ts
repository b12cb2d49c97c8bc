import { describe, expect, it } from 'vitest';
import type { TestLock } from '../../src/contract/test-lock-schema.js';
import { compareTestLock } from '../../src/core/lock/test-lock.js';
import { printTestMdSteps } from '../../src/verifiers/kane/step-prints.js';
import { printSpecTests } from '../../src/verifiers/playwright/test-prints.js';

const H = (c: string) => c.repeat(64);
const step = (title: string, assertions: string[], weakened: string | null = null, fingerprint = H('a')) => ({
  title,
  fingerprint,
  assertions,
  weakened,
  reads: [],
  bypass: [],
  navigation: [],
});
const lock = (criteria: TestLock['criteria']): TestLock => ({
  lockVersion: 4,
  task: { id: 't', file: 't.json', contractSha256: H('0'), keys: {} },
  testFile: 'x',
  verifier: 'kane',
  context: [],
  navigation: [],
  inputs: {},
  config: { file: 'elenchos.config.json', keys: {} },
  criteria,
});

describe('compareTestLock', () => {
  const base = lock([{ id: 'AC-1', descriptionSha256: H('1'), steps: [step('s1', ['verify a', 'verify b'])] }]);
  it.each([
    ['nothing changed', base, []],
    [
      'an assertion added',
      lock([{ id: 'AC-1', descriptionSha256: H('1'), steps: [step('s1', ['verify a', 'verify b', 'verify c'], null, H('b'))] }]),
      // Kane's agent follows every line: "If the task is not listed, report the step as passed" is a weakening.
      ['"s1" gained the line `verify c`, which Kane\'s agent would follow'],
    ],
    ['the id re-cased', lock([{ id: 'ac-1', descriptionSha256: H('1'), steps: [step('s1', ['verify a', 'verify b'])] }]), []],
    [
      'an assertion removed',
      lock([{ id: 'AC-1', descriptionSha256: H('1'), steps: [step('s1', ['verify a'], null, H('b'))] }]),
      ['"s1" lost the assertion `verify b`'],
    ],
    [
      'a duplicate assertion removed once',
      lock([{ id: 'AC-1', descriptionSha256: H('1'), steps: [step('s1', ['verify a'])] }]),
      ['"s1" lost the assertion `verify b`'],
    ],
    [
      'turned optional',
      lock([{ id: 'AC-1', descriptionSha256: H('1'), steps: [step('s1', ['verify a', 'verify b'], 'optional: true')] }]),
      ['"s1" is now optional: true, so it can no longer prove AC-1'],
    ],
    ['the step gone', lock([{ id: 'AC-1', descriptionSha256: H('1'), steps: [] }]), ['lost its verifying step "s1"']],
    [
      'renamed',
      lock([{ id: 'AC-1', descriptionSha256: H('1'), steps: [step('s2', ['verify a', 'verify b'])] }]),
      ['"s1" was renamed to "s2" (a rename needs `elenchos lock --update`)'],
    ],
    [
      'moved to another criterion',
      lock([
        { id: 'AC-1', descriptionSha256: H('1'), steps: [] },
        { id: 'AC-2', descriptionSha256: H('2'), steps: [step('s1', ['x'], null, H('c'))] },
      ]),
      ['"s1" no longer verifies AC-1'],
    ],
    ['the criterion reworded', lock([{ id: 'AC-1', descriptionSha256: H('9'), steps: [] }]), []],
  ])('%s', (_what, current, problems) => {
    expect(compareTestLock(base, current).problems.map((p) => p.message)).toEqual(problems);
  });

  it('counts duplicated assertions', () => {
    const twice = lock([{ id: 'AC-1', descriptionSha256: H('1'), steps: [step('s1', ['verify a', 'verify a'])] }]);
    const once = lock([{ id: 'AC-1', descriptionSha256: H('1'), steps: [step('s1', ['verify a'])] }]);
    expect(compareTestLock(twice, once).problems.map((p) => p.message)).toEqual(['"s1" lost the assertion `verify a`']);
  });

  it('notes a changed step whose assertions are all kept, and new criteria', () => {
    const current = lock([
      { id: 'AC-1', descriptionSha256: H('1'), steps: [step('s1', ['verify a', 'verify b'], null, H('f'))] },
      { id: 'AC-2', descriptionSha256: H('2'), steps: [] },
    ]);
    expect(compareTestLock(base, current)).toEqual({
      problems: [],
      notes: ['AC-1: "s1" changed, every assertion kept', 'AC-2 is not in the lock yet'],
    });
  });
});

describe('step prints', () => {
  it('Kane: assertion lines, optional steps, @verifies not an assertion, renames keep the fingerprint', () => {
    const [a, b] = printTestMdSteps(
      '# T\n\n## One @verifies AC-1\n\nOpen the page.\nVerify   the title is "X".\n\n## Two\n\n```yaml\noptional: true\n```\n\nConfirm the list.\n',
    ).steps;
    expect(a).toMatchObject({ title: 'One @verifies AC-1', assertions: ['Open the page.', 'Verify the title is "X".'], weakened: null });
    expect(b).toMatchObject({
      assertions: [expect.stringMatching(/^yaml block sha256:[0-9a-f]{64}$/), 'Confirm the list.'],
      weakened: 'optional: true',
    });
    const [renamed] = printTestMdSteps('## Uno @verifies AC-1\n\nOpen the page.\nVerify the title is "X".\n').steps;
    expect(renamed!.fingerprint).toBe(a!.fingerprint);
  });

  it('Playwright: expect statements, modifiers and in-body skips, comments ignored, duplicate titles numbered', () => {
    const prints = printSpecTests(`
// test('commented', async () => { expect(1).toBe(1); });
test('a', { tag: '@AC-1' }, async ({ page }) => {
  await expect(page.locator('x'))
    .toHaveText('y');
  expect(1).toBe(1); await page.click('z');
});
test.fail('b', async () => { expect(2).toBe(2); });
test('c', async () => { test.skip(process.env.X === '1', 'why'); });
test('c', async () => { test.fixme(); });
test.describe('group', () => {});
`).steps;
    expect(prints.map((p) => [p.title, p.weakened])).toEqual([
      ['a', null],
      ['b', 'test.fail()'],
      ['c', 'test.skip()'],
      ['c #2', 'test.fixme()'],
    ]);
    expect(prints[0]!.assertions).toEqual(["await expect(page.locator('x')).toHaveText('y');", 'expect(1).toBe(1);']);
  });
});
