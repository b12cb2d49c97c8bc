// The command verifier's classification, rule by rule, on hand-built protocol states.
import { describe, expect, it } from 'vitest';
import { mapCriteria } from '../../src/contract/criteria-map.js';
import { classifyCommand, type CommandProcess } from '../../src/verifiers/command/classify-command.js';
import { ProtocolState } from '../../src/verifiers/command/protocol.js';
import { parseTestMd } from '../../src/verifiers/kane/test-md.js';

const TEST = '## One @verifies AC-001\nx\n\n## Two @verifies AC-002\ny\n';
const declared = parseTestMd(TEST).steps;
const criteria = [
  { id: 'AC-001', description: 'one' },
  { id: 'AC-002', description: 'two' },
];
const ctx = { criteria, map: mapCriteria(criteria, declared), timeoutMs: 90_000 };
const ran = (more: Partial<CommandProcess> = {}): CommandProcess => ({
  exitCode: 0,
  timedOut: false,
  aborted: false,
  spawnError: null,
  stderrTail: '',
  ...more,
});

function state(events: Record<string, unknown>[]) {
  const s = new ProtocolState();
  for (const e of events) s.feed(e);
  return s;
}
const step = (n: number, status: string, more: Record<string, unknown> = {}) => [
  { type: 'step_start', step: n },
  { type: 'step_end', step: n, title: n === 1 ? 'One @verifies AC-001' : 'Two @verifies AC-002', status, ...more },
];
const done = (status: string) => ({ type: 'done', status });
const byId = (r: { criteria: { id: string; status: string }[] }) => Object.fromEntries(r.criteria.map((c) => [c.id, c.status]));

describe('classifyCommand', () => {
  it('PASS when every step passed and done says passed', () => {
    const r = classifyCommand(ctx, declared, state([...step(1, 'passed'), ...step(2, 'passed'), done('passed')]), ran({ exitCode: 1 }));
    expect(r).toMatchObject({ status: 'PASS', summary: 'the verifier passed all 2 step(s)', findings: [] });
    expect(byId(r)).toEqual({ 'AC-001': 'PASS', 'AC-002': 'PASS' });
  });

  it.each([
    [ran({ spawnError: 'x: ENOENT' }), 'the verifier could not start: x: ENOENT'],
    [ran({ aborted: true }), 'the verifier was interrupted'],
    [ran({ timedOut: true }), 'the verifier ran past its 90s limit and was killed'],
    [ran({ exitCode: 2, stderrTail: 'boom\nlast words\n\n' }), 'the verifier exited 2 without a "done" event: last words'],
    [ran({ exitCode: 2, stderrTail: 'one\ntwo\n\nthree  \n' }), 'the verifier exited 2 without a "done" event: three'],
    [ran({ exitCode: 2 }), 'the verifier exited 2 without a "done" event'],
  ])('VERIFIER_ERROR when %j', (process, summary) => {
    const passing = process.exitCode === 2 ? [...step(1, 'passed')] : [...step(1, 'passed'), ...step(2, 'passed'), done('passed')];
    expect(classifyCommand(ctx, declared, state(passing), process)).toMatchObject({ status: 'VERIFIER_ERROR', summary });
  });

  it('INCONCLUSIVE when the report is cut off with exit 0', () => {
    const r = classifyCommand(ctx, declared, state(step(1, 'passed')), ran());
    expect(r).toMatchObject({ status: 'INCONCLUSIVE', summary: 'the verifier exited 0 without a "done" event (its report is cut off)' });
  });

  it.each([
    [[...step(1, 'passed'), ...step(3, 'passed'), done('passed')], 'step 3 is not in the test file (it has 2)'],
    [
      [...step(1, 'passed', { title: 'Uno' }), ...step(2, 'passed'), done('passed')],
      'step 1 is "Uno" in the report but "One @verifies AC-001" in the test file',
    ],
    [[...step(1, 'passed'), ...step(1, 'passed'), ...step(2, 'passed'), done('passed')], 'step 1 was reported twice'],
  ])('INCONCLUSIVE, every criterion UNVERIFIED, when the report does not match: %j', (events, problem) => {
    const r = classifyCommand(ctx, declared, state(events), ran());
    expect(r.status).toBe('INCONCLUSIVE');
    expect(r.summary).toBe(`the report does not match the test file: ${problem}`);
    expect(byId(r)).toEqual({ 'AC-001': 'UNVERIFIED', 'AC-002': 'UNVERIFIED' });
    expect(r.findings[0]).toMatchObject({
      kind: 'inconsistency',
      reason: problem,
      reasonCode: 'report_mismatch',
      step: null,
      heading: null,
    });
  });

  it('a title with surrounding spaces still matches', () => {
    const r = classifyCommand(
      ctx,
      declared,
      state([...step(1, 'passed', { title: '  One @verifies AC-001 ' }), ...step(2, 'passed'), done('passed')]),
      ran(),
    );
    expect(r.status).toBe('PASS');
  });

  it('FAIL on a product failure, with a finding per failed step', () => {
    const r = classifyCommand(
      ctx,
      declared,
      state([
        ...step(1, 'failed', { failure: 'verifier', message: 'crash' }),
        ...step(2, 'failed', { failure: 'product', message: 'no milk' }),
        done('failed'),
      ]),
      ran({ exitCode: 1 }),
    );
    expect(r).toMatchObject({ status: 'FAIL', summary: 'product failure at step 2; could not be judged: AC-001' });
    expect(byId(r)).toEqual({ 'AC-001': 'UNVERIFIED', 'AC-002': 'FAIL' });
    expect(r.findings).toEqual([
      {
        step: 1,
        heading: 'One @verifies AC-001',
        kind: 'verifier_error',
        reason: 'crash',
        reasonCode: 'failure.verifier',
        resultCode: null,
        verdict: null,
        sessionId: null,
        evidencePack: null,
      },
      {
        step: 2,
        heading: 'Two @verifies AC-002',
        kind: 'product_failure',
        reason: 'no milk',
        reasonCode: 'failure.product',
        resultCode: null,
        verdict: null,
        sessionId: null,
        evidencePack: null,
      },
    ]);
  });

  it('VERIFIER_ERROR on a verifier failure, INCONCLUSIVE on an unattributed one', () => {
    const v = classifyCommand(
      ctx,
      declared,
      state([...step(1, 'passed'), ...step(2, 'failed', { failure: 'verifier', message: 'browser crashed' }), done('failed')]),
      ran({ exitCode: 1 }),
    );
    expect(v).toMatchObject({ status: 'VERIFIER_ERROR', summary: 'the verifier failed at step 2: browser crashed' });
    const u = classifyCommand(ctx, declared, state([...step(1, 'passed'), ...step(2, 'failed'), done('failed')]), ran({ exitCode: 1 }));
    expect(u).toMatchObject({ status: 'INCONCLUSIVE', summary: 'step 2 failed with no attribution (failure: product or verifier)' });
    expect(u.findings[0]).toMatchObject({ kind: 'unattributed_failure', reason: 'failed', reasonCode: 'failure.unknown' });
  });

  it('names every product failure, and the first verifier failure after an unattributed one', () => {
    const p = classifyCommand(
      ctx,
      declared,
      state([...step(1, 'failed', { failure: 'product' }), ...step(2, 'failed', { failure: 'product' }), done('failed')]),
      ran({ exitCode: 1 }),
    );
    expect(p.summary).toBe('product failure at step 1, 2');
    const v = classifyCommand(
      ctx,
      declared,
      state([...step(1, 'failed', { message: 'odd' }), ...step(2, 'failed', { failure: 'verifier' }), done('failed')]),
      ran({ exitCode: 1 }),
    );
    expect(v.summary).toBe('the verifier failed at step 2: ');
    expect(byId(v)).toEqual({ 'AC-001': 'UNVERIFIED', 'AC-002': 'UNVERIFIED' });
    expect(v.criteria.map((c) => c.note)).toEqual([
      'step 1 failed for a reason that is not a confirmed product failure',
      'step 2 failed for a reason that is not a confirmed product failure',
    ]);
  });

  it('INCONCLUSIVE when done says failed but no step failed, or a criterion is not verified', () => {
    const f = classifyCommand(ctx, declared, state([...step(1, 'passed'), ...step(2, 'passed'), done('failed')]), ran());
    expect(f).toMatchObject({ status: 'INCONCLUSIVE', summary: 'the verifier says failed, but no step failed' });
    const one = classifyCommand(
      ctx,
      declared,
      state([...step(1, 'passed'), { type: 'step_end', step: 2, status: 'skipped' }, done('passed')]),
      ran(),
    );
    expect(one).toMatchObject({ status: 'INCONCLUSIVE', summary: 'the verifier passed, but AC-002 is not verified (step 2 did not run)' });
    const both = classifyCommand(ctx, declared, state([done('passed')]), ran());
    expect(both.summary).toBe('the verifier passed, but AC-001, AC-002 are not verified (step 1 did not run)');
  });
});
