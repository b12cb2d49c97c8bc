// The evidence beside a failing test in the HTML report and JUnit: what a spec author controls (titles,
// messages, attachments) never becomes markup, and only raster screenshots are inlined.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { criteriaWithEvidence } from '../../src/core/run/attempt-criteria.js';
import { gatherAttemptEvidence } from '../../src/core/stored-runs/report-evidence.js';
import { renderFindings } from '../../src/reporters/html-findings.js';
import { renderJunit } from '../../src/reporters/junit.js';
import type { Finding } from '../../src/verifiers/types.js';
import { tempDir } from '../helpers/temp.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const hostile = '<script>alert(1)</script>"\'&';

function finding(extra: Partial<Finding> & Record<string, unknown>): Finding {
  return {
    step: 2,
    heading: hostile,
    kind: 'product_failure',
    reason: `Error: ${hostile}`,
    reasonCode: 'assertion',
    resultCode: null,
    verdict: null,
    sessionId: null,
    evidencePack: null,
    ...extra,
  };
}

describe('evidence beside a failing test', () => {
  it('inlines PNG screenshots only, links the trace with its command, and escapes everything a spec controls', async () => {
    const run = tempDir();
    const attempt = path.join(run, 'attempts/01');
    const out = path.join(attempt, 'verifier/playwright/t');
    mkdirSync(out, { recursive: true });
    writeFileSync(path.join(out, 'test-failed-1.png'), PNG);
    writeFileSync(path.join(out, 'evil.svg'), '<svg onload="alert(1)"/>');
    writeFileSync(path.join(out, 'trace.zip'), 'zip');
    writeFileSync(path.join(out, 'error-context.md'), `- heading "${hostile}"`);
    // Recorded where the run used to be: the report finds the files under this attempt's verifier/.
    const recorded = (name: string) => path.join('/gone/elsewhere/attempts/01/verifier/playwright/t', name);
    const attachments = [
      { name: 'screenshot', contentType: 'image/png', path: recorded('test-failed-1.png') },
      { name: 'screenshot', contentType: 'image/svg+xml', path: recorded('evil.svg') },
      { name: 'trace', contentType: 'application/zip', path: recorded('trace.zip') },
      { name: 'error-context', contentType: 'text/markdown', path: recorded('error-context.md') },
    ];
    const evidence = await gatherAttemptEvidence(attempt, [{ attachments }, {}], path.join(run, 'reports'));
    expect(evidence.findings[1]).toBeNull();
    expect(evidence.findings[0]?.screenshots).toEqual([`data:image/png;base64,${PNG.toString('base64')}`]);
    expect(evidence.findings[0]?.trace).toEqual({
      href: '../attempts/01/verifier/playwright/t/trace.zip',
      command: `npx playwright show-trace ${path.join(out, 'trace.zip')}`,
    });

    const html = renderFindings(
      [
        finding({ location: `tests/${hostile}.spec.ts:3:5`, detail: `Expected: 3\nReceived: ${hostile}` }),
        finding({ kind: 'verifier_error' }),
      ],
      evidence,
    ).join('\n');
    expect(html).not.toMatch(/<script|<svg|onload/);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;');
    expect(html).toContain(`Expected: 3\nReceived: &lt;script&gt;`);
    expect(html).toContain('product failure (the app misbehaved)');
    expect(html).toContain('verifier error (could not judge)');
    expect(html.match(/<img /g)).toHaveLength(1);
  });

  it("gives JUnit cases their tests' summed duration and each failing test's whole message, escaped", () => {
    const criteria = criteriaWithEvidence({
      criteria: [
        { id: 'AC-001', description: 'one', status: 'PASS', note: null, steps: [1, 3] },
        { id: 'AC-002', description: 'two', status: 'FAIL', note: 'product failure at step 2', steps: [2] },
        { id: 'AC-003', description: 'three', status: 'UNVERIFIED', note: 'no step verifies this criterion', steps: [] },
      ],
      findings: [
        { ...finding({ evidencePack: '/e/trace.zip', detail: `Expected: 3\nReceived: ${hostile}` }), location: 'tests/a.spec.ts:9:3' },
      ],
      verifier: {
        details: {
          tests: [
            { index: 1, durationMs: 1200 },
            { index: 2, durationMs: 345 },
            { index: 3, durationMs: 300 },
          ],
        },
      },
    });
    expect(criteria.map((c) => [c.id, c.durationMs])).toEqual([
      ['AC-001', 1500],
      ['AC-002', 345],
      ['AC-003', null],
    ]);
    const record = { runId: 'r1', task: { id: 't' }, durationMs: 2000, state: 'FAILED', reason: 'PRODUCT_FAILURE', message: null };
    const xml = renderJunit([{ file: 'tasks/t.json', record: record as never, runDir: '/r', refused: null, criteria }]);
    expect(xml).toContain('name="AC-001: one" time="1.500"></testcase>');
    expect(xml).toContain('name="AC-003: three" time="0">');
    expect(xml).toContain(
      'test 2 &quot;&lt;script&gt;alert(1)&lt;/script&gt;&quot;&apos;&amp;&quot; at tests/a.spec.ts:9:3:\nError: &lt;script&gt;',
    );
    expect(xml).toContain('Expected: 3\nReceived: &lt;script&gt;');
    expect(xml).toContain('trace: npx playwright show-trace /e/trace.zip');
    expect(xml).not.toContain('<script');
  });
});
