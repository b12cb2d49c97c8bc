// Kane's loose field readers, table-driven: what each accepts, and that everything else is null (unknown), never a guess.
import { describe, expect, it } from 'vitest';
import { mergeVerdicts, readBool, readInt, readNumber, readObject, readString, readVerdict } from '../../src/verifiers/kane/kane-values.js';
import type { Verdict } from '../../src/verifiers/types.js';

describe('the field readers', () => {
  it.each([
    ['text', 'text'],
    [' ', ' '],
    ['', null],
    [0, null],
    [null, null],
    [undefined, null],
    [['a'], null],
  ])('readString(%j) → %j', (value, expected) => {
    expect(readString(value)).toBe(expected);
  });

  it.each([
    [740, 740],
    [-3, -3],
    [0, 0],
    [1.5, null],
    [Number.NaN, null],
    [Number.POSITIVE_INFINITY, null],
    ['740', 740],
    [' 740 ', 740],
    ['-12', -12],
    ['7a', null],
    ['a7', null],
    ['1.5', null],
    ['', null],
    ['-', null],
    [true, null],
    [null, null],
    // An array or object is not read through its string form.
    [['740'], null],
    [{ toString: () => '740' }, null],
  ])('readInt(%j) → %j', (value, expected) => {
    expect(readInt(value)).toBe(expected);
  });

  it.each([
    [1.25, 1.25],
    [0, 0],
    [-2, -2],
    [Number.NaN, null],
    [Number.POSITIVE_INFINITY, null],
    ['1.25', 1.25],
    [' 3 ', 3],
    ['', null],
    ['   ', null],
    ['abc', null],
    ['Infinity', null],
    [false, null],
    [null, null],
  ])('readNumber(%j) → %j', (value, expected) => {
    expect(readNumber(value)).toBe(expected);
  });

  it.each([
    [true, true],
    [false, false],
    ['true', true],
    ['false', false],
    ['TRUE', null],
    [1, null],
    [0, null],
    ['', null],
    [null, null],
  ])('readBool(%j) → %j', (value, expected) => {
    expect(readBool(value)).toBe(expected);
  });

  it('readObject takes plain objects only', () => {
    const object = { a: 1 };
    expect(readObject(object)).toBe(object);
    expect(readObject({})).toEqual({});
    for (const value of [null, undefined, [], [1], 'x', 3, true]) expect(readObject(value)).toBeNull();
  });
});

describe('readVerdict', () => {
  const full = {
    confirmed: true,
    family: 'application_issue',
    category: 'functional',
    severity: 'high',
    confidence: 0.9,
    bug_title: 'Cart total wrong',
    one_liner: 'the total ignores the discount',
    status: 'failed',
    downgrade_reason: 'citations not verified',
  };

  it('reads every field from its snake_case key', () => {
    expect(readVerdict(full)).toEqual({
      confirmed: true,
      family: 'application_issue',
      category: 'functional',
      severity: 'high',
      confidence: 0.9,
      bugTitle: 'Cart total wrong',
      oneLiner: 'the total ignores the discount',
      status: 'failed',
      downgradeReason: 'citations not verified',
    });
  });

  it('is null for anything that is not an object, and for an object that says nothing attributing', () => {
    for (const value of [null, undefined, 'confirmed', [full], 1]) expect(readVerdict(value)).toBeNull();
    expect(readVerdict({})).toBeNull();
    // Severity, confidence and the rest without one of confirmed/family/category/bug_title attribute nothing.
    expect(readVerdict({ severity: 'high', confidence: 1, one_liner: 'x', status: 'failed', downgrade_reason: 'y' })).toBeNull();
  });

  it.each([
    [{ confirmed: false }, { confirmed: false }],
    [{ confirmed: 'true' }, { confirmed: true }],
    [{ family: 'automation_bug' }, { family: 'automation_bug' }],
    [{ category: 'visual' }, { category: 'visual' }],
    [{ bug_title: 'Broken' }, { bugTitle: 'Broken' }],
  ])('any one attributing field makes a verdict: %j', (raw, fields) => {
    const verdict = readVerdict(raw);
    expect(verdict).toMatchObject(fields);
    // The fields it does not carry are null, not copied from elsewhere.
    const absent = Object.entries(verdict!).filter(([key]) => !(key in fields));
    expect(absent.every(([, value]) => value === null)).toBe(true);
  });
});

describe('mergeVerdicts', () => {
  const verdict = (fields: Partial<Verdict>): Verdict => ({
    confirmed: null,
    family: null,
    category: null,
    severity: null,
    confidence: null,
    bugTitle: null,
    oneLiner: null,
    status: null,
    downgradeReason: null,
    ...fields,
  });

  it('returns the one present, or null', () => {
    const a = verdict({ family: 'application_issue' });
    expect(mergeVerdicts(a, null)).toBe(a);
    expect(mergeVerdicts(null, a)).toBe(a);
    expect(mergeVerdicts(null, null)).toBeNull();
  });

  it("takes each field from the primary first, the secondary's where the primary has none", () => {
    const primary = verdict({ confirmed: false, family: 'application_issue', confidence: 0, oneLiner: 'run_end says' });
    const secondary = verdict({
      confirmed: true,
      family: 'automation_bug',
      category: 'functional',
      severity: 'low',
      confidence: 0.8,
      bugTitle: 'Title',
      oneLiner: 'bug verdict says',
      status: 'broken',
      downgradeReason: 'why',
    });
    expect(mergeVerdicts(primary, secondary)).toEqual({
      confirmed: false,
      family: 'application_issue',
      category: 'functional',
      severity: 'low',
      confidence: 0,
      bugTitle: 'Title',
      oneLiner: 'run_end says',
      status: 'broken',
      downgradeReason: 'why',
    });
    // Neither has the field: null, not undefined.
    expect(mergeVerdicts(verdict({ family: 'x' }), verdict({ category: 'y' }))).toEqual(verdict({ family: 'x', category: 'y' }));
  });

  it('a verdict without the optional fields merges to null ones', () => {
    const bare = { confirmed: true, family: null, category: null, severity: null, confidence: null, bugTitle: null, oneLiner: null };
    expect(mergeVerdicts(bare, bare)).toMatchObject({ status: null, downgradeReason: null });
  });
});
