import { describe, expect, it } from 'vitest';
import { judgeCriteria, mapCriteria, type StepVerdict } from '../../src/contract/criteria-map.js';

const criteria = [
  { id: 'AC-1', description: 'one' },
  { id: 'AC-10', description: 'ten' },
  { id: 'AC-002', description: 'two' },
];

describe('mapCriteria', () => {
  it('matches whole ids case-insensitively: AC-1 never matches AC-10', () => {
    const map = mapCriteria(criteria, [
      { index: 1, heading: 'a', verifies: ['ac-1'] },
      { index: 2, heading: 'b', verifies: ['AC-10', 'AC-1'] },
    ]);
    expect(map.byCriterion.get('AC-1')).toEqual([1, 2]);
    expect(map.byCriterion.get('AC-10')).toEqual([2]);
    expect(map.steps[0]!.criteria).toEqual(['AC-1']);
    expect(map.unmapped).toEqual(['AC-002']);
  });

  it('reports ids that are not in the contract, suggesting a zero-padding fix', () => {
    const map = mapCriteria(criteria, [{ index: 1, heading: 'a', verifies: ['AC-2', 'XY-9'] }]);
    expect(map.unknown).toEqual([
      { step: 1, heading: 'a', id: 'AC-2', suggestion: 'AC-002' },
      { step: 1, heading: 'a', id: 'XY-9', suggestion: null },
    ]);
  });
});

describe('judgeCriteria', () => {
  const map = mapCriteria(criteria, [
    { index: 1, heading: 'a', verifies: ['AC-1'] },
    { index: 2, heading: 'b', verifies: ['AC-1', 'AC-10'] },
    { index: 3, heading: 'c', verifies: [] },
  ]);
  const judge = (verdicts: [number, StepVerdict][]) =>
    Object.fromEntries(judgeCriteria(criteria, map, new Map(verdicts)).map((r) => [r.id, r.status]));

  it('PASS only when every verifying step passed', () => {
    expect(
      judge([
        [1, 'passed'],
        [2, 'passed'],
        [3, 'passed'],
      ]),
    ).toEqual({ 'AC-1': 'PASS', 'AC-10': 'PASS', 'AC-002': 'UNVERIFIED' });
  });

  it('FAIL on a product failure of any verifying step, even if another passed', () => {
    expect(
      judge([
        [1, 'passed'],
        [2, 'product_failure'],
      ]),
    ).toMatchObject({ 'AC-1': 'FAIL', 'AC-10': 'FAIL' });
  });

  it('UNVERIFIED when a step was skipped or failed for another reason', () => {
    expect(
      judge([
        [1, 'passed'],
        [2, 'failed_other'],
      ]),
    ).toMatchObject({ 'AC-1': 'UNVERIFIED', 'AC-10': 'UNVERIFIED' });
    expect(judge([[1, 'passed']])).toMatchObject({ 'AC-1': 'UNVERIFIED' });
  });

  it('a criterion nobody tests is never PASS', () => {
    const result = judgeCriteria(
      criteria,
      map,
      new Map([
        [1, 'passed'],
        [2, 'passed'],
        [3, 'passed'],
      ]),
    );
    expect(result.find((r) => r.id === 'AC-002')).toMatchObject({
      status: 'UNVERIFIED',
      steps: [],
      note: 'no step verifies this criterion',
    });
  });
});
