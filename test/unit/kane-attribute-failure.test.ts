// Who a failed Kane step is blamed on, as the table in docs/kane.md: each rule, and the order they are tried in.
import { describe, expect, it } from 'vitest';
import { attributeFailure } from '../../src/verifiers/kane/attribute-failure.js';
import type { StepFacts } from '../../src/verifiers/kane/stream-state.js';
import type { Verdict } from '../../src/verifiers/types.js';

const verdict = (fields: Partial<Verdict>): Verdict => ({
  confirmed: null,
  family: null,
  category: null,
  severity: null,
  confidence: null,
  bugTitle: null,
  oneLiner: null,
  ...fields,
});

const step = (fields: Partial<StepFacts>): StepFacts => ({
  index: 1,
  heading: 'Step 1',
  headingConflict: false,
  started: true,
  status: 'failed',
  endCount: 1,
  endConflict: false,
  durationSeconds: 1,
  runFailed: true,
  reason: null,
  oneLiner: null,
  reasonCode: null,
  resultCode: null,
  runVerdict: null,
  bugVerdict: null,
  ...fields,
});

const confirmed = verdict({ confirmed: true, family: 'application_issue' });
const automation = verdict({ confirmed: true, family: 'automation_bug' });
const suspected = verdict({ confirmed: false, family: 'application_issue' });

describe('attributeFailure', () => {
  it.each<[string, Partial<StepFacts>, string, string]>([
    // Infrastructure first: whatever triage said, a broken browser proves nothing.
    [
      'infra reason code',
      { reasonCode: 'infra_error.browser_crashed', runVerdict: confirmed },
      'verifier',
      'infrastructure error (infra_error.browser_crashed)',
    ],
    ['infra result code', { resultCode: 510, runVerdict: confirmed }, 'verifier', 'infrastructure error (510)'],
    [
      'infra result code beside another reason code',
      { resultCode: 510, reasonCode: 'assertion_error.x' },
      'verifier',
      'infrastructure error (assertion_error.x)',
    ],
    // Family before confirmed.
    ['automation family, confirmed', { runVerdict: automation }, 'verifier', 'verdict family automation_bug'],
    ['automation family from the bug verdict', { bugVerdict: automation, resultCode: 740 }, 'verifier', 'verdict family automation_bug'],
    ['confirmed', { runVerdict: confirmed, reasonCode: 'stuck.no_progress' }, 'product', 'verdict confirmed'],
    ['confirmed only in the bug verdict', { bugVerdict: verdict({ confirmed: true }), resultCode: 330 }, 'product', 'verdict confirmed'],
    ['result code 740', { resultCode: 740, reasonCode: 'stuck.loop' }, 'product', 'result_code 740 (confirmed product bug)'],
    [
      'confirmed product bug reason code',
      { reasonCode: 'assertion_error.confirmed_product_bug' },
      'product',
      'result_code 740 (confirmed product bug)',
    ],
    // The agent could not act: an unconfirmed suspicion does not outweigh that.
    ['stuck', { reasonCode: 'stuck.no_progress', runVerdict: suspected }, 'verifier', 'the agent could not proceed (stuck.no_progress)'],
    ['agent error', { reasonCode: 'agent_error.llm' }, 'verifier', 'the agent could not proceed (agent_error.llm)'],
    ['result code 330', { resultCode: 330 }, 'verifier', 'the agent could not proceed (330)'],
    [
      'unconfirmed application issue',
      { runVerdict: suspected, resultCode: 200 },
      'product',
      'verdict family application_issue (not confirmed)',
    ],
    [
      'a verdict of another family',
      { runVerdict: verdict({ family: 'test_issue' }) },
      'unattributed',
      'verdict without attribution (family test_issue)',
    ],
    [
      'a verdict without a family',
      { runVerdict: verdict({ confirmed: false, category: 'x' }) },
      'unattributed',
      'verdict without attribution (family none)',
    ],
    ['nothing', { reasonCode: 'assertion_error.mismatch', resultCode: 200 }, 'unattributed', 'no verdict and no attributing code'],
  ])('%s', (_name, fields, attribution, rule) => {
    expect(attributeFailure(step(fields))).toMatchObject({ attribution, rule });
  });

  it('only a reason code that starts with the family counts', () => {
    for (const reasonCode of ['x.infra_error.y', 'x.stuck.y', 'my_agent_error.y', 'stuck', 'infra_error'])
      expect(attributeFailure(step({ reasonCode })).attribution).toBe('unattributed');
    for (const resultCode of [511, 741, 331]) expect(attributeFailure(step({ resultCode })).attribution).toBe('unattributed');
  });

  it("returns the step's verdict: run_end's fields first, the bug verdict's beside them", () => {
    const result = attributeFailure(
      step({
        runVerdict: verdict({ confirmed: true, oneLiner: 'run' }),
        bugVerdict: verdict({ family: 'application_issue', oneLiner: 'bug' }),
      }),
    );
    expect(result.verdict).toMatchObject({ confirmed: true, family: 'application_issue', oneLiner: 'run' });
    expect(attributeFailure(step({})).verdict).toBeNull();
    // The verdict comes back on every rule, the infrastructure one included.
    expect(attributeFailure(step({ resultCode: 510, bugVerdict: confirmed })).verdict).toMatchObject({ confirmed: true });
  });
});
