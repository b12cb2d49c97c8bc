import { describe, expect, it } from 'vitest';
import { judgeCriteria, mapCriteria } from '../../src/contract/criteria-map.js';
import type { StepVerdict } from '../../src/states.js';

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

describe('mapCriteria, more', () => {
  it('keeps the contract spelling and names a criterion once per step, however often the step names it', () => {
    const map = mapCriteria(criteria, [{ index: 4, heading: 'd', verifies: ['ac-002', 'AC-002', 'Ac-10'] }]);
    expect(map.steps).toEqual([{ index: 4, heading: 'd', criteria: ['AC-002', 'AC-10'] }]);
    expect(map.unknown).toEqual([]);
    expect(map.unmapped).toEqual(['AC-1']);
    expect([...map.byCriterion.keys()]).toEqual(['AC-1', 'AC-10', 'AC-002']);
  });

  it('suggests the padded id whatever the case, and nothing for ids that are not PREFIX-number', () => {
    const suggest = (id: string) => mapCriteria(criteria, [{ index: 1, heading: 'a', verifies: [id] }]).unknown[0]?.suggestion;
    expect(suggest('ac-0002')).toBe('AC-002');
    expect(suggest('ac-01')).toBe('AC-1');
    expect(suggest('AC-100')).toBeNull();
    expect(suggest('AC-2x')).toBeNull();
    expect(suggest('X-AC-2')).toBeNull();
    expect(suggest('1-2')).toBeNull();
    // A contract whose ids are not PREFIX-number is compared whole, case-insensitively.
    const odd = [
      { id: 'LOGIN', description: 'x' },
      { id: 'B-7', description: 'y' },
    ];
    expect(mapCriteria(odd, [{ index: 1, heading: 'a', verifies: ['LOGIN!'] }]).unknown[0]!.suggestion).toBeNull();
    expect(mapCriteria(odd, [{ index: 1, heading: 'a', verifies: ['b-007'] }]).unknown[0]!.suggestion).toBe('B-7');
    expect(mapCriteria(odd, [{ index: 1, heading: 'a', verifies: ['B7-07'] }]).unknown[0]!.suggestion).toBeNull();
  });
});

describe('judgeCriteria', () => {
  // Built inside each test (not while the file is collected), so Stryker can tell which tests cover mapCriteria.
  const map = () =>
    mapCriteria(criteria, [
      { index: 1, heading: 'a', verifies: ['AC-1'] },
      { index: 2, heading: 'b', verifies: ['AC-1', 'AC-10'] },
      { index: 3, heading: 'c', verifies: [] },
    ]);
  const judge = (verdicts: [number, StepVerdict][]) =>
    Object.fromEntries(judgeCriteria(criteria, map(), new Map(verdicts)).map((r) => [r.id, r.status]));

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
      map(),
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

describe('judgeCriteria notes', () => {
  // Built inside each test (not while the file is collected), so Stryker can tell which tests cover mapCriteria.
  const map = () =>
    mapCriteria(criteria, [
      { index: 1, heading: 'a', verifies: ['AC-1', 'AC-002'] },
      { index: 2, heading: 'b', verifies: ['AC-1'] },
      { index: 3, heading: 'c', verifies: ['AC-1', 'AC-10'] },
    ]);
  const judge = (verdicts: [number, StepVerdict][]) => judgeCriteria(criteria, map(), new Map(verdicts));

  it('a criterion the map has never seen is verified by no step', () => {
    expect(judgeCriteria([{ id: 'AC-9', description: 'nine' }], map(), new Map([[1, 'passed']]))).toEqual([
      { id: 'AC-9', description: 'nine', status: 'UNVERIFIED', steps: [], note: 'no step verifies this criterion' },
    ]);
  });

  it('names the steps behind each status, with the description and steps of each criterion', () => {
    expect(
      judge([
        [1, 'product_failure'],
        [2, 'failed_other'],
        [3, 'product_failure'],
      ]),
    ).toEqual([
      { id: 'AC-1', description: 'one', status: 'FAIL', steps: [1, 2, 3], note: 'product failure at step 1, 3' },
      { id: 'AC-10', description: 'ten', status: 'FAIL', steps: [3], note: 'product failure at step 3' },
      { id: 'AC-002', description: 'two', status: 'FAIL', steps: [1], note: 'product failure at step 1' },
    ]);
    expect(
      judge([
        [1, 'passed'],
        [2, 'failed_other'],
        [3, 'failed_other'],
      ]).map((r) => [r.status, r.note]),
    ).toEqual([
      ['UNVERIFIED', 'step 2, 3 failed for a reason that is not a confirmed product failure'],
      ['UNVERIFIED', 'step 3 failed for a reason that is not a confirmed product failure'],
      ['PASS', null],
    ]);
    expect(
      judge([
        [1, 'skipped'],
        [3, 'passed'],
      ]).map((r) => [r.status, r.note]),
    ).toEqual([
      ['UNVERIFIED', 'step 1, 2 did not run'],
      ['PASS', null],
      ['UNVERIFIED', 'step 1 did not run'],
    ]);
  });
});
