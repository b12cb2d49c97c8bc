// The four real captures, replayed by the fake kane-cli through the adapter (a real child process).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { kaneAdapter } from '../../src/verifiers/kane/adapter.js';
import { CORPUS, corpusTest, kaneFixture, statuses, withVerifies } from './kane-harness.js';

async function replay(capture: string, testName: string) {
  const fixture = kaneFixture({ text: withVerifies(corpusTest(testName)), name: testName, env: { FAKE_KANE_REPLAY: capture } });
  const result = await kaneAdapter.verify(fixture.ctx);
  return { ...fixture, result };
}

describe('kane adapter on the real corpus', () => {
  it('t1-shop_filter-author: PASS, every criterion PASS', async () => {
    const { result, progress } = await replay('t1-shop_filter-author', 'shop_filter_test.md');
    expect(result.status).toBe('PASS');
    expect(statuses(result)).toEqual(['PASS', 'PASS', 'PASS', 'PASS']);
    expect(result.findings).toEqual([]);
    expect(result.details.sessionId).toBe('909760af-11ff-4cb5-8e6d-07f003ce4f73');
    expect(result.details.streamContractVersion).toBeNull();
    expect(progress.filter((p) => p.kind === 'step-end').map((p) => p.kind === 'step-end' && p.status)).toEqual([
      'passed',
      'passed',
      'passed',
      'passed',
    ]);
  });

  it('t2-home_cta-author: PASS, every criterion PASS', async () => {
    const { result } = await replay('t2-home_cta-author', 'home_cta_test.md');
    expect(result.status).toBe('PASS');
    expect(statuses(result)).toEqual(['PASS', 'PASS', 'PASS']);
    expect(result.exitCode).toBe(0);
  });

  it('t5 stuck, paired with the file it ran: VERIFIER_ERROR, steps 1-4 PASS, step 5 UNVERIFIED', async () => {
    const { result } = await replay('t5-orders_persist-author-attempt1-stuck', 'orders_persist-attempt1_test.md');
    expect(result.status).toBe('VERIFIER_ERROR');
    expect(statuses(result)).toEqual(['PASS', 'PASS', 'PASS', 'PASS', 'UNVERIFIED']);
    expect(result.findings).toHaveLength(1);
    expect(result.findings[0]).toMatchObject({
      step: 5,
      heading: 'Step 5 — assert the order survives a full reload',
      kind: 'verifier_error',
      reason: 'AP determined agent is stuck — no viable actions remain',
      reasonCode: 'stuck.ap_stuck',
      resultCode: 330,
      sessionId: 'd4cee1e1-380c-47b3-8819-4f227d03a624',
      verdict: { confirmed: false, family: 'automation_bug', category: 'config_issue', severity: 'major', confidence: 0.89 },
    });
  });

  it('t5 stuck, paired with the committed file (step 4 heading differs): INCONCLUSIVE', async () => {
    const { result } = await replay('t5-orders_persist-author-attempt1-stuck', 'orders_persist_test.md');
    expect(result.status).toBe('INCONCLUSIVE');
    expect(result.summary).toContain('Step 4 — read what Orders lists');
    expect(statuses(result)).toEqual(['PASS', 'PASS', 'PASS', 'UNVERIFIED', 'UNVERIFIED']);
    expect(result.criteria[3]!.note).toContain('the test file says "Step 4 — store what Orders lists"');
    expect(result.findings.find((f) => f.kind === 'inconsistency')).toMatchObject({ step: 4 });
  });

  it('t7 cart discount: FAIL on step 5 (verdict beats "agent is stuck" reason text), evidence kept', async () => {
    const { result, evidenceDir } = await replay('t7-cart_discount-author', 'cart_discount_test.md');
    expect(result.status).toBe('FAIL');
    expect(result.exitCode).toBe(1);
    expect(statuses(result)).toEqual(['PASS', 'PASS', 'PASS', 'PASS', 'FAIL']);
    const pack =
      '/Users/nokitha/.testmuai/kaneai/sessions/994d16b7-6a50-4caa-bc09-491ba6663ffc/evidence/20091f19-2681-44ca-bc81-81c9e0a4587d.evidence';
    expect(result.findings).toEqual([
      {
        step: 5,
        heading: 'Step 5 — assert the total is ten percent below the subtotal',
        kind: 'product_failure',
        reason: 'AP determined agent is stuck — no viable actions remain',
        reasonCode: 'assertion_error.confirmed_product_bug',
        resultCode: 740,
        verdict: {
          confirmed: true,
          family: 'application_issue',
          category: 'ui_data_defect',
          severity: 'major',
          confidence: 0.95,
          bugTitle: 'Cart total does not apply 10% auto-discount above $50 subtotal',
          oneLiner:
            'The cart subtotal was over $50, but the page still showed the full $72.00 total instead of the discounted $64.80 total.',
          status: 'failed',
          downgradeReason: null,
        },
        sessionId: '994d16b7-6a50-4caa-bc09-491ba6663ffc',
        evidencePack: pack,
      },
    ]);
    // The raw stream and stderr are kept byte for byte. The pack named on stderr lies under the recorder's HOME;
    // its copy in the cwd store (kane-cli.md §8.3), which Kane writes on every run, is the one kept.
    const capture = path.join(CORPUS, 't7-cart_discount-author');
    expect(readFileSync(path.join(evidenceDir, 'events.ndjson'))).toEqual(readFileSync(`${capture}.ndjson`));
    expect(readFileSync(path.join(evidenceDir, 'stderr.log'))).toEqual(readFileSync(`${capture}.stderr.txt`));
    expect(result.details.evidencePack).toBe(pack);
    expect(result.details.missing).toEqual([]);
    expect(
      readFileSync(path.join(evidenceDir, 'kane', path.basename(pack)))
        .subarray(0, 2)
        .toString('latin1'),
    ).toBe('PK');
    expect(result.details.skippedLines).toBe(0);
  });
});
