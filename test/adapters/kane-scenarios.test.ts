// Every generated scenario of the fake kane-cli, through the adapter (a real child process each time).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { kaneAdapter } from '../../src/verifiers/kane/adapter.js';
import { kaneFixture, simpleTest, statuses } from './kane-harness.js';

async function run(scenario: string, steps = 3, extra: Record<string, string> = {}) {
  const fixture = kaneFixture({ text: simpleTest(steps), env: { FAKE_KANE_SCENARIO: scenario, ...extra } });
  const result = await kaneAdapter.verify(fixture.ctx);
  return { ...fixture, result };
}

describe.concurrent('kane adapter on generated 0.8.17 streams', () => {
  it('pass: PASS, progress live, Result.md and the evidence pack copied', async () => {
    const { result, progress, evidenceDir, home } = await run('pass');
    expect(result).toMatchObject({ status: 'PASS', exitCode: 0, timedOut: false, findings: [] });
    expect(statuses(result)).toEqual(['PASS', 'PASS', 'PASS']);
    expect(progress.map((p) => p.kind)).toEqual(['step-start', 'step-end', 'step-start', 'step-end', 'step-start', 'step-end']);
    expect(result.details).toMatchObject({ kaneVersion: '0.8.17-beta.1', streamContractVersion: 1, skippedLines: 0, missing: [] });
    const pack = result.details.evidencePack as string;
    expect(pack.startsWith(path.join(home, '.testmuai/kaneai/sessions', result.details.sessionId as string, 'evidence'))).toBe(true);
    // The pack is a plain zip (kane-cli.md §8.4): copied whole, its local-file signature first.
    expect(
      readFileSync(path.join(evidenceDir, 'kane', path.basename(pack)))
        .subarray(0, 4)
        .toString('latin1'),
    ).toBe('PK\x03\x04');
    expect(readFileSync(path.join(evidenceDir, 'kane/output-sample/Result.md'), 'utf8')).toContain('status: passed');
    expect(readFileSync(path.join(evidenceDir, 'events.ndjson'), 'utf8').split('\n')[0]).toContain('"type":"stream_start"');
  });

  it('product-fail:2: FAIL at step 2, step 3 skipped (no events) and UNVERIFIED', async () => {
    const { result } = await run('product-fail:2');
    expect(result.status).toBe('FAIL');
    expect(result.exitCode).toBe(1);
    expect(statuses(result)).toEqual(['PASS', 'FAIL', 'UNVERIFIED']);
    expect(result.criteria[2]!.note).toBe('step 3 did not run');
    expect(result.findings).toHaveLength(1);
    expect(result.findings[0]).toMatchObject({
      step: 2,
      kind: 'product_failure',
      resultCode: 740,
      verdict: { confirmed: true, family: 'application_issue' },
    });
    expect(result.details.steps).toMatchObject([
      { status: 'passed' },
      { status: 'failed', verdict: 'product_failure' },
      { status: 'skipped' },
    ]);
  });

  it('automation-fail:1: VERIFIER_ERROR (family automation_bug), criterion UNVERIFIED', async () => {
    const { result } = await run('automation-fail:1');
    expect(result.status).toBe('VERIFIER_ERROR');
    expect(statuses(result)).toEqual(['UNVERIFIED', 'UNVERIFIED', 'UNVERIFIED']);
    expect(result.findings[0]).toMatchObject({
      step: 1,
      kind: 'verifier_error',
      verdict: { family: 'automation_bug', category: 'agent_misstep' },
    });
  });

  it('infra-error:3: VERIFIER_ERROR on infra_error.screenshot_failed 510', async () => {
    const { result } = await run('infra-error:3');
    expect(result.status).toBe('VERIFIER_ERROR');
    expect(statuses(result)).toEqual(['PASS', 'PASS', 'UNVERIFIED']);
    expect(result.findings[0]).toMatchObject({
      step: 3,
      kind: 'verifier_error',
      reasonCode: 'infra_error.screenshot_failed',
      resultCode: 510,
      verdict: null,
    });
  });

  it('no-credentials: exit 2 with nothing on stdout is a VERIFIER_ERROR naming the auth error', async () => {
    const { result, evidenceDir } = await run('no-credentials');
    expect(result.status).toBe('VERIFIER_ERROR');
    expect(result.exitCode).toBe(2);
    expect(result.summary).toContain('kane-cli exited 2');
    expect(result.summary).toContain('Credentials not valid');
    expect(statuses(result)).toEqual(['UNVERIFIED', 'UNVERIFIED', 'UNVERIFIED']);
    expect(readFileSync(path.join(evidenceDir, 'events.ndjson'), 'utf8')).toBe('');
    expect(readFileSync(path.join(evidenceDir, 'stderr.log'), 'utf8')).toContain('No credentials found');
  });

  it('timeout-exit3: VERIFIER_ERROR (Kane cancelled or timed out)', async () => {
    const { result } = await run('timeout-exit3');
    expect(result).toMatchObject({ status: 'VERIFIER_ERROR', exitCode: 3, timedOut: false });
    expect(result.summary).toContain('kane-cli exited 3');
  });

  it('false-green: exit 0 and "passed" with a failed step is not a PASS', async () => {
    const { result } = await run('false-green');
    expect(result.exitCode).toBe(0);
    expect(result.status).toBe('INCONCLUSIVE');
    expect(statuses(result)).toEqual(['UNVERIFIED', 'UNVERIFIED', 'UNVERIFIED']);
    expect(result.findings.map((f) => f.kind)).toEqual(['inconsistency', 'unattributed_failure']);
    expect(result.findings[0]!.reason).toContain('issue #93');
    expect(result.findings[1]).toMatchObject({ step: 1, reason: 'assertion_failed: @ step 2', reasonCode: null, resultCode: null });
  });

  it('exit1-all-passed: the structured result wins over exit 1', async () => {
    const { result } = await run('exit1-all-passed');
    expect(result).toMatchObject({ status: 'PASS', exitCode: 1 });
    expect(statuses(result)).toEqual(['PASS', 'PASS', 'PASS']);
  });

  it('truncated: no test_md_done is INCONCLUSIVE, the cut line is counted', async () => {
    const { result } = await run('truncated');
    expect(result.status).toBe('INCONCLUSIVE');
    expect(result.summary).toContain('truncated');
    expect(statuses(result)).toEqual(['PASS', 'PASS', 'UNVERIFIED']);
    expect(result.details.skippedLines).toBe(1);
  });

  it('noise: banners, blank and broken lines are skipped, counted and sampled; still a PASS', async () => {
    const { result } = await run('noise', 4);
    expect(result.status).toBe('PASS');
    expect(result.details.lines).toMatchObject({ blank: 4, invalid: 2 });
    expect((result.details.lines as { samples: string[] }).samples[0]).toMatch(/^Skill update available/);
  });

  it('heading-mismatch: INCONCLUSIVE, the mismatched step is not counted as passed', async () => {
    const { result } = await run('heading-mismatch');
    expect(result.status).toBe('INCONCLUSIVE');
    expect(statuses(result)).toEqual(['UNVERIFIED', 'PASS', 'PASS']);
    expect(result.criteria[0]!.note).toContain('(as Kane remembers it)');
  });

  it('legacy (pre-0.8.17) generated stream: no stream_start, v or ts, still a PASS', async () => {
    const { result } = await run('pass', 2, { FAKE_KANE_LEGACY: '1' });
    expect(result.status).toBe('PASS');
    expect(result.details).toMatchObject({ kaneVersion: null, streamContractVersion: null });
  });

  it("a test file Kane refuses (unknown frontmatter key): exit 2, VERIFIER_ERROR with Kane's message", async () => {
    const fixture = kaneFixture({ text: `---\ntest_id: 7\n---\n${simpleTest(1)}` });
    const result = await kaneAdapter.verify(fixture.ctx);
    expect(result.status).toBe('VERIFIER_ERROR');
    expect(result.summary).toContain(`error: [${fixture.ctx.testFile}:1] unknown config key: test_id`);
  });

  it('a criterion no step names keeps a Kane pass from being a PASS', async () => {
    const fixture = kaneFixture({ text: simpleTest(2), env: { FAKE_KANE_SCENARIO: 'pass' } });
    fixture.ctx.criteria = [...fixture.ctx.criteria, { id: 'AC-009', description: 'nobody tests me' }];
    fixture.ctx.map.byCriterion.set('AC-009', []);
    const result = await kaneAdapter.verify(fixture.ctx);
    expect(result.status).toBe('INCONCLUSIVE');
    expect(result.summary).toContain('AC-009');
    expect(statuses(result)).toEqual(['PASS', 'PASS', 'UNVERIFIED']);
  });
});
