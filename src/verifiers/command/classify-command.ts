// Classifies a command verifier's report: structured result over exit code, like Kane.
import { judgeCriteria } from '../../contract/criteria-map.js';
import type { StepVerdict, VerdictStatus } from '../../states.js';
import type { TestMdStep } from '../kane/test-md.js';
import type { Finding, VerificationResult, VerifyContext } from '../types.js';
import type { ProtocolState } from './protocol.js';
import { decideAttemptStatus, type Trouble } from '../attempt-status.js';

export interface CommandProcess {
  exitCode: number | null;
  timedOut: boolean;
  aborted: boolean;
  spawnError: string | null;
  stderrTail: string;
  /** A stdout line passed MAX_LINE_LENGTH and was cut: that event is unreadable, so the report is. */
  lineTooLong?: boolean;
}

/** First match wins: could not run → VERIFIER_ERROR; no done → by exit code; mismatch → INCONCLUSIVE; then the steps. */
export function classifyCommand(
  ctx: Pick<VerifyContext, 'criteria' | 'map' | 'timeoutMs'>,
  declared: readonly TestMdStep[],
  state: ProtocolState,
  process: CommandProcess,
): Pick<VerificationResult, 'status' | 'summary' | 'criteria' | 'findings'> {
  const findings: Finding[] = [];
  const finding = (kind: Finding['kind'], step: number | null, reason: string, reasonCode: string): Finding => ({
    step,
    heading: step === null ? null : (declared[step - 1]?.heading ?? null),
    kind,
    reason,
    reasonCode,
    resultCode: null,
    verdict: null,
    sessionId: null,
    evidencePack: null,
  });
  const verdicts = new Map<number, StepVerdict>();
  for (const s of state.steps.values()) {
    verdicts.set(
      s.step,
      s.status === 'passed' ? 'passed' : s.status === 'skipped' ? 'skipped' : s.failure === 'product' ? 'product_failure' : 'failed_other',
    );
  }
  const criteria = judgeCriteria(ctx.criteria, ctx.map, verdicts);
  const result = (status: VerdictStatus, summary: string) => ({ status, summary, criteria, findings });
  const lastErr = process.stderrTail.trim().split('\n').filter(Boolean).at(-1) ?? '';

  if (process.spawnError) return result('VERIFIER_ERROR', `the verifier could not start: ${process.spawnError}`);
  if (process.aborted) return result('VERIFIER_ERROR', 'the verifier was interrupted');
  if (process.timedOut)
    return result('VERIFIER_ERROR', `the verifier ran past its ${Math.round(ctx.timeoutMs / 1000)}s limit and was killed`);
  if (process.lineTooLong)
    return result(
      'INCONCLUSIVE',
      'the verifier printed a line longer than Elenchos accepts (4 Mi characters); that event was cut and the report cannot be trusted',
    );
  if (state.done === null) {
    return process.exitCode === 0
      ? result('INCONCLUSIVE', 'the verifier exited 0 without a "done" event (its report is cut off)')
      : result('VERIFIER_ERROR', `the verifier exited ${process.exitCode} without a "done" event${lastErr ? `: ${lastErr}` : ''}`);
  }
  const mismatches: string[] = [...state.problems];
  for (const s of state.steps.values()) {
    const expected = declared[s.step - 1];
    if (!expected) mismatches.push(`step ${s.step} is not in the test file (it has ${declared.length})`);
    else if (s.title !== null && s.title.trim() !== expected.heading)
      mismatches.push(`step ${s.step} is "${s.title}" in the report but "${expected.heading}" in the test file`);
  }
  if (mismatches.length > 0) {
    findings.push(...mismatches.map((m) => finding('inconsistency', null, m, 'report_mismatch')));
    // A report that breaks the protocol verifies nothing, not even the steps it got right.
    const unverified = judgeCriteria(ctx.criteria, ctx.map, new Map());
    return { status: 'INCONCLUSIVE', summary: `the report does not match the test file: ${mismatches[0]}`, criteria: unverified, findings };
  }
  const failed = [...state.steps.values()].filter((s) => s.status === 'failed');
  for (const s of failed) {
    const kind = s.failure === 'product' ? 'product_failure' : s.failure === 'verifier' ? 'verifier_error' : 'unattributed_failure';
    findings.push(finding(kind, s.step, s.message ?? 'failed', `failure.${s.failure}`));
  }
  // The report is whole and matches the test file: the shared rule decides (a confirmed FAIL wins).
  const troubles: Trouble[] = [];
  const verifier = failed.find((s) => s.failure === 'verifier');
  if (verifier)
    troubles.push({
      scope: 'test',
      status: 'VERIFIER_ERROR',
      summary: `the verifier failed at step ${verifier.step}: ${verifier.message ?? ''}`,
    });
  const unattributed = failed.find((s) => s.failure !== 'product' && s.failure !== 'verifier');
  if (unattributed)
    troubles.push({
      scope: 'test',
      status: 'INCONCLUSIVE',
      summary: `step ${unattributed.step} failed with no attribution (failure: product or verifier)`,
    });
  const orphan = failed.find((s) => s.failure === 'product' && (ctx.map.steps.find((m) => m.index === s.step)?.criteria.length ?? 0) === 0);
  if (orphan)
    troubles.push({
      scope: 'test',
      status: 'INCONCLUSIVE',
      summary: `step ${orphan.step} failed on the product but verifies no criterion`,
    });
  if (state.done === 'failed' && failed.length === 0)
    troubles.push({ scope: 'run', status: 'INCONCLUSIVE', summary: 'the verifier says failed, but no step failed' });
  const product = failed.filter((s) => s.failure === 'product').map((s) => s.step);
  const decision = decideAttemptStatus(criteria, troubles, {
    fail: `product failure at step ${product.join(', ')}`,
    pass: `the verifier passed all ${state.steps.size} step(s)`,
    unverified: (ids) =>
      `the verifier passed, but ${ids.join(', ')} ${ids.length === 1 ? 'is' : 'are'} not verified (${criteria.find((c) => c.id === ids[0])?.note ?? ''})`,
  });
  return result(decision.status, decision.summary);
}
