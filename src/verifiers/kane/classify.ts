// The attempt status rules (docs/kane.md#classification) as one pure function: process outcome + stream facts + the test file → attempt status,
// findings and a verdict per step. The rule order is the precedence table in docs/kane.md.
import type { StepVerdict, VerdictStatus } from '../../states.js';
import type { Finding } from '../types.js';
import { attributeFailure, type AttributedFailure } from './attribute-failure.js';
import { checkCounts, checkPairing, falseGreen, type DeclaredStepInfo, type StreamProblem } from './stream-checks.js';
import type { StepFacts, StreamFacts } from './stream-state.js';
import type { Trouble } from '../attempt-status.js';

export interface ProcessOutcome {
  exitCode: number | null;
  signal: string | null;
  /** Our own wall-clock timeout fired (Kane's --timeout is not trusted). */
  timedOut: boolean;
  aborted: boolean;
  outputCapped: boolean;
  /** A line of Kane's stdout passed MAX_LINE_LENGTH and was cut: that event is unreadable, so the stream is. */
  lineTooLong?: boolean;
  /** Kane could not be started at all (ENOENT, EACCES). */
  spawnError: string | null;
  timeoutMs: number;
  /** The last meaningful stderr line, for messages. */
  lastStderrLine: string | null;
}

export interface ClassifyInput {
  facts: StreamFacts;
  process: ProcessOutcome;
  declared: readonly DeclaredStepInfo[];
  /** Events that parsed (0 means nothing usable came out). */
  eventCount: number;
  evidencePack: string | null;
}

export interface Classification {
  status: VerdictStatus;
  summary: string;
  findings: Finding[];
  /** Per declared step, for judgeCriteria. */
  stepVerdicts: Map<number, StepVerdict>;
  /** Why a step's verdict is not what its status suggests (heading mismatch, unfinished). */
  stepNotes: Map<number, string>;
  /** Which rule decided (stable, for tests and docs). */
  rule: string;
  /**
   * The trouble behind the status, for the shared rule (attempt-status.ts) that decides the attempt once
   * the criteria are judged: rules 1–13 are run trouble (the stream cannot be trusted whole), failed steps
   * that are not the product's are test trouble beside any confirmed FAIL.
   */
  troubles: Trouble[];
}

/** Classifies one `kane-cli testmd run`; first matching rule wins. */
export function classifyKane(input: ClassifyInput): Classification {
  const { facts, process: p, declared } = input;
  const sessionId = facts.done?.sessionId ?? null;
  const findings: Finding[] = [];
  const finding = (kind: Finding['kind'], reason: string, step: number | null = null): Finding => ({
    step,
    heading: step === null ? null : (facts.steps.get(step)?.heading ?? declared[step - 1]?.heading ?? null),
    kind,
    reason,
    reasonCode: null,
    resultCode: null,
    verdict: null,
    sessionId,
    evidencePack: input.evidencePack,
  });
  const failures = new Map<number, AttributedFailure>();
  for (const step of facts.steps.values()) if (step.status === 'failed') failures.set(step.index, attributeFailure(step));
  for (const [index, failure] of [...failures].sort((a, b) => a[0] - b[0]))
    findings.push(failureFinding(facts.steps.get(index)!, failure, sessionId, input.evidencePack));
  const pairing = checkPairing(facts, declared);
  const { stepVerdicts, stepNotes } = judgeSteps(facts, declared, failures, pairing);
  const running = [...facts.steps.values()].find((s) => s.started && s.status === null)?.index ?? null;
  let troubles: Trouble[] | null = null;
  const done = (status: VerdictStatus, rule: string, summary: string, extra: Finding[] = []): Classification => {
    findings.unshift(...extra);
    const run: Trouble[] = status === 'PASS' || status === 'FAIL' ? [] : [{ scope: 'run', status, summary }];
    return { status, summary, findings, stepVerdicts, stepNotes, rule, troubles: troubles ?? run };
  };
  const problems = (list: StreamProblem[]) => list.map((x) => finding('inconsistency', x.message, x.step));

  const early =
    processRule(p, running, finding) ??
    streamRule({ facts, declared, pairing, eventCount: input.eventCount, exitCode: p.exitCode, running, finding, problems });
  if (early) return done(early.status, early.rule, early.summary, early.findings);
  const green = falseGreen(facts, declared);
  const extra = green ? problems([green]) : [];
  // An optional step that failed for the verifier's reasons does not sink the run; rule 18 still
  // keeps its criteria from PASS. A product failure counts wherever it happens.
  const optional = (index: number) => declared[index - 1]?.optional === true;
  const failed = [...failures.entries()].filter(([i, f]) => f.attribution === 'product' || !optional(i));
  const product = failed.filter(([, f]) => f.attribution === 'product').map(([i]) => i);
  const verifier = failed.filter(([, f]) => f.attribution === 'verifier');
  const notPassed = declared
    .filter((d) => facts.steps.get(d.index)?.status !== 'passed' && !(d.optional && failures.has(d.index)))
    .map((d) => d.index);
  // From here the stream is whole and consistent: the shared rule lets a confirmed FAIL win over these.
  troubles = [
    ...verifier.slice(0, 1).map(([index, f]): Trouble => ({
      scope: 'test',
      status: 'VERIFIER_ERROR',
      summary: `step ${index} failed because of the verifier, not the product: ${f.rule}`,
    })),
    ...failed
      .filter(([, f]) => f.attribution === 'unattributed')
      .slice(0, 1)
      .map((): Trouble => ({
        scope: 'test',
        status: 'INCONCLUSIVE',
        summary: `step ${failed
          .filter(([, f]) => f.attribution === 'unattributed')
          .map(([i]) => i)
          .join(', ')} failed without a verdict that says why`,
      })),
    // A product failure at a step that verifies no criterion: kept from PASS here, never a FAIL (no criterion failed).
    ...product.slice(0, 1).map((index): Trouble => ({
      scope: 'test',
      status: 'INCONCLUSIVE',
      summary: `product failure at step ${index}, which verifies no criterion: ${headline(facts, index)}`,
    })),
    ...(notPassed.length > 0 && failed.length === 0
      ? [{ scope: 'test', status: 'INCONCLUSIVE', summary: `Kane passed, but step ${notPassed.join(', ')} did not run` } as Trouble]
      : []),
  ];
  if (product.length > 0) {
    return done('FAIL', 'product-failure', `product failure at step ${product.join(', ')}: ${headline(facts, product[0]!)}`, extra);
  }
  if (verifier.length > 0) {
    const [index, f] = verifier[0]!;
    return done('VERIFIER_ERROR', 'verifier-failure', `step ${index} failed because of the verifier, not the product: ${f.rule}`, extra);
  }
  if (failed.length > 0) {
    return done('INCONCLUSIVE', 'unattributed', `step ${failed.map(([i]) => i).join(', ')} failed without a verdict that says why`, extra);
  }
  if (notPassed.length > 0) {
    return done('INCONCLUSIVE', 'steps-not-run', `Kane passed, but step ${notPassed.join(', ')} did not run`, extra);
  }
  return done('PASS', 'passed', `Kane passed all ${declared.length} step(s)`, extra);
}

/** A rule that decided the attempt before the steps were weighed. */
interface RuleHit {
  status: VerdictStatus;
  rule: string;
  summary: string;
  findings?: Finding[];
}
type MakeFinding = (kind: Finding['kind'], reason: string, step?: number | null) => Finding;
const hit = (status: VerdictStatus, rule: string, summary: string, findings?: Finding[]): RuleHit => ({ status, rule, summary, findings });

/** Rules 1–8: how the kane-cli process ended (not started, timed out, interrupted, an exit code that is not a verdict, cut output). */
function processRule(p: ClassifyInput['process'], running: number | null, finding: MakeFinding): RuleHit | null {
  if (p.spawnError)
    return hit('VERIFIER_ERROR', 'spawn-failed', `kane-cli could not be started: ${p.spawnError}`, [
      finding('verifier_error', p.spawnError),
    ]);
  if (p.timedOut) {
    const why = `no result within ${Math.round(p.timeoutMs / 1000)} s (Elenchos's own timeout); the whole process group was killed`;
    return hit('VERIFIER_ERROR', 'timeout', why, [finding('verifier_error', why, running)]);
  }
  if (p.aborted)
    return hit('VERIFIER_ERROR', 'aborted', 'verification was interrupted', [finding('verifier_error', 'interrupted', running)]);
  if (p.exitCode === 2 || p.exitCode === 3) {
    const what = p.exitCode === 2 ? 'a setup, auth, parse or browser error' : 'cancelled or timed out';
    const why = `kane-cli exited ${p.exitCode} (${what})${p.lastStderrLine ? `: ${p.lastStderrLine}` : ''}`;
    return hit('VERIFIER_ERROR', `exit-${p.exitCode}`, why, [finding('verifier_error', why, running)]);
  }
  if (p.outputCapped)
    return hit('INCONCLUSIVE', 'output-capped', 'kane-cli printed more output than Elenchos accepts; the stream was cut and is unusable');
  if (p.lineTooLong)
    return hit(
      'INCONCLUSIVE',
      'line-too-long',
      'kane-cli printed a line longer than Elenchos accepts (4 Mi characters); that event was cut and the stream cannot be trusted',
    );
  if (p.exitCode !== 0 && p.exitCode !== 1) {
    const why = p.signal ? `kane-cli was killed by ${p.signal}` : `kane-cli exited ${p.exitCode} (not a testmd exit code)`;
    return hit('VERIFIER_ERROR', 'crashed', why, [finding('verifier_error', why, running)]);
  }
  return null;
}

/** Rules 9–15: whether the stream is whole and agrees with the test file and with itself. */
function streamRule(input: {
  facts: StreamFacts;
  declared: readonly DeclaredStepInfo[];
  pairing: StreamProblem[];
  eventCount: number;
  exitCode: number | null;
  running: number | null;
  finding: MakeFinding;
  problems: (list: StreamProblem[]) => Finding[];
}): RuleHit | null {
  const { facts, declared, pairing, running, finding, problems } = input;
  if (pairing.length > 0) {
    return hit('INCONCLUSIVE', 'pairing', `the stream does not match the test file: ${pairing[0]!.message}`, problems(pairing));
  }
  if (facts.violationCount > 0) {
    const why = `the stream breaks Kane's event order or shape (${facts.violationCount} violation(s)): ${facts.violations.join('; ')}`;
    return hit(
      'INCONCLUSIVE',
      'malformed',
      why,
      facts.violations.map((m) => finding('inconsistency', m)),
    );
  }
  if (facts.errorCount > 0) {
    const why = `Kane reported ${facts.errorCount} error event(s): ${facts.errors[0] ?? ''}`;
    return hit(
      'VERIFIER_ERROR',
      'error-event',
      why,
      facts.errors.map((m) => finding('verifier_error', m, running)),
    );
  }
  if (input.eventCount === 0) return hit('INCONCLUSIVE', 'empty', `kane-cli exited ${input.exitCode} without printing a single event`);
  if (!facts.done) {
    return hit('INCONCLUSIVE', 'truncated', 'the stream ended before test_md_done (truncated): no final result', [
      finding('inconsistency', 'no test_md_done', running),
    ]);
  }
  if (facts.summary?.cancelled === true) return hit('VERIFIER_ERROR', 'cancelled', 'Kane reports the run as cancelled');
  const contradictions = checkCounts(facts, declared);
  if (contradictions.length > 0) {
    return hit('INCONCLUSIVE', 'contradiction', `Kane contradicts itself: ${contradictions[0]!.message}`, problems(contradictions));
  }
  return null;
}

function judgeSteps(
  facts: StreamFacts,
  declared: readonly DeclaredStepInfo[],
  failures: Map<number, AttributedFailure>,
  pairing: StreamProblem[],
) {
  const stepVerdicts = new Map<number, StepVerdict>();
  const stepNotes = new Map<number, string>();
  for (const own of declared) {
    const step = facts.steps.get(own.index);
    const mismatch = pairing.find((x) => x.step === own.index);
    if (mismatch) {
      stepVerdicts.set(own.index, 'failed_other');
      stepNotes.set(own.index, mismatch.message);
    } else if (step?.status === 'passed') {
      stepVerdicts.set(own.index, 'passed');
    } else if (step?.status === 'failed') {
      stepVerdicts.set(own.index, failures.get(own.index)?.attribution === 'product' ? 'product_failure' : 'failed_other');
    } else if (step?.started) {
      stepVerdicts.set(own.index, 'failed_other');
      stepNotes.set(own.index, `step ${own.index} started but never finished`);
    } else {
      stepVerdicts.set(own.index, 'skipped');
    }
  }
  return { stepVerdicts, stepNotes };
}

function failureFinding(step: StepFacts, f: AttributedFailure, sessionId: string | null, evidencePack: string | null): Finding {
  const kind = f.attribution === 'product' ? 'product_failure' : f.attribution === 'verifier' ? 'verifier_error' : 'unattributed_failure';
  return {
    step: step.index,
    heading: step.heading,
    kind,
    reason: step.reason ?? step.oneLiner ?? f.verdict?.oneLiner ?? null,
    reasonCode: step.reasonCode,
    resultCode: step.resultCode,
    verdict: f.verdict,
    sessionId,
    evidencePack,
  };
}

function headline(facts: StreamFacts, index: number): string {
  const step = facts.steps.get(index)!;
  const verdict = step.runVerdict ?? step.bugVerdict;
  return verdict?.bugTitle ?? verdict?.oneLiner ?? step.oneLiner ?? step.reason ?? `"${step.heading ?? ''}" failed`;
}
