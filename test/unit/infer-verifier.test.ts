// Without a verifier in the config or the task, the test file's name picks it; the mapping hint speaks that verifier.
import { describe, expect, it } from 'vitest';
import { howToVerify } from '../../src/core/lock/mapping-hint.js';
import { inferVerifier } from '../../src/core/resolve-task.js';

describe('inferVerifier', () => {
  it('Playwright for spec and test files, Kane otherwise', () => {
    for (const file of ['tests/a.spec.ts', 'e2e/b.test.ts', 'c.spec.js', 'd.test.mjs', 'e.spec.tsx', 'f.test.cjs'])
      expect(inferVerifier(file), file).toBe('playwright');
    for (const file of ['tests/a_test.md', 'tests/spec.ts', 'a.spec.md', 'tests/a.ts']) expect(inferVerifier(file), file).toBe('kane');
  });
});

describe('howToVerify', () => {
  it('a tag for Playwright, @verifies for a step-based test', () => {
    expect(howToVerify('playwright', 'AC-002', 't.spec.ts')).toBe(
      "tag the test that checks it in t.spec.ts: test('…', { tag: '@AC-002' }, async ({ page }) => { … })",
    );
    expect(howToVerify('kane', 'AC-002', 't_test.md')).toBe('add "@verifies AC-002" to the step that checks it in t_test.md');
    expect(howToVerify('command', 'AC-002', 't_test.md')).toContain('@verifies AC-002');
  });
});
