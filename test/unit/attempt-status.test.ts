// The shared rule every verifier decides an attempt with: a confirmed FAIL wins, but never over an untrustworthy report.
import { describe, expect, it } from 'vitest';
import type { CriterionResult } from '../../src/contract/criteria-map.js';
import { decideAttemptStatus, type Trouble } from '../../src/verifiers/attempt-status.js';

const c = (id: string, status: CriterionResult['status'], note: string | null = null): CriterionResult => ({
  id,
  description: id,
  status,
  steps: [1],
  note,
});
const words = { fail: 'product failure at step 1', pass: 'all passed', unverified: (ids: string[]) => `not verified: ${ids.join(', ')}` };
const testTrouble: Trouble = { scope: 'test', status: 'VERIFIER_ERROR', summary: 'test 2 timed out outside the page' };
const runTrouble: Trouble = { scope: 'run', status: 'INCONCLUSIVE', summary: 'the report contradicts itself' };

describe('decideAttemptStatus', () => {
  it('a confirmed FAIL wins over test-level trouble, and names what could not be judged', () => {
    const d = decideAttemptStatus([c('AC-1', 'FAIL'), c('AC-2', 'UNVERIFIED')], [testTrouble], words);
    expect(d).toEqual({
      status: 'FAIL',
      summary: 'product failure at step 1; could not be judged: AC-2',
      failed: ['AC-1'],
      unjudged: ['AC-2'],
    });
  });

  it('names every criterion that could not be judged beside a FAIL', () => {
    expect(decideAttemptStatus([c('AC-1', 'UNVERIFIED'), c('AC-2', 'FAIL'), c('AC-3', 'UNVERIFIED')], [], words).summary).toBe(
      'product failure at step 1; could not be judged: AC-1, AC-3',
    );
  });

  it('never lets a FAIL out of a report that cannot be trusted whole (a forged report must not write the repair prompt)', () => {
    expect(decideAttemptStatus([c('AC-1', 'FAIL')], [testTrouble, runTrouble], words)).toMatchObject({
      status: 'INCONCLUSIVE',
      summary: 'the report contradicts itself',
    });
  });

  it('without a FAIL, test trouble decides, in the order given', () => {
    const second: Trouble = { scope: 'test', status: 'INCONCLUSIVE', summary: 'flaky' };
    expect(decideAttemptStatus([c('AC-1', 'PASS'), c('AC-2', 'UNVERIFIED')], [testTrouble, second], words)).toMatchObject({
      status: 'VERIFIER_ERROR',
      summary: testTrouble.summary,
    });
  });

  it('a failure that names no criterion is never a FAIL: the verifier reports it as trouble, and every criterion PASS is still not PASS', () => {
    const orphan: Trouble = { scope: 'test', status: 'INCONCLUSIVE', summary: 'test 3 failed but names no criterion' };
    expect(decideAttemptStatus([c('AC-1', 'PASS')], [orphan], words)).toMatchObject({ status: 'INCONCLUSIVE', failed: [] });
  });

  it('PASS only when every criterion is PASS and nothing went wrong', () => {
    expect(decideAttemptStatus([c('AC-1', 'PASS'), c('AC-2', 'UNVERIFIED', 'no step')], [], words)).toMatchObject({
      status: 'INCONCLUSIVE',
      summary: 'not verified: AC-2',
    });
    expect(decideAttemptStatus([c('AC-1', 'PASS')], [], words)).toMatchObject({ status: 'PASS', summary: 'all passed' });
  });
});
