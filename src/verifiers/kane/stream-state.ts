// The incremental reader of a `testmd run` stream: fed one event at a time, it keeps only what
// classification needs (per-step facts, summary, completion), so a stream of any size costs flat memory.
import type { VerifierProgress } from '../types.js';
import { mergeVerdicts, readBool, readInt, readNumber, readObject, readString, readVerdict } from './kane-values.js';
import type { StepFacts, StreamFacts } from './stream-facts.js';

export type { DoneFacts, StepFacts, StreamFacts, SummaryFacts } from './stream-facts.js';

const KEEP = 5;
/** Far more steps than a `_test.md` holds (each is a heading and a paragraph); an index past it is no step of the test. */
const MAX_STEP_INDEX = 10_000;
const MAX_TYPES = 64;
const AFTER_DONE_FORBIDDEN = new Set([
  'test_md_step_start',
  'run_end',
  'test_md_bug_verdict',
  'test_md_step_end',
  'test_md_summary',
  'test_md_done',
]);

/** A state machine over Kane events; `onProgress` hears step starts and ends as they happen. */
export class KaneStreamState {
  private readonly facts: StreamFacts = {
    cliVersion: null,
    contractVersion: null,
    steps: new Map(),
    summary: null,
    done: null,
    errorCount: 0,
    errors: [],
    warnings: [],
    orphans: [],
    eventsAfterDone: 0,
    violations: [],
    violationCount: 0,
    typeCounts: {},
    creditsConsumed: null,
  };
  private current: StepFacts | null = null;

  constructor(private readonly onProgress?: (progress: VerifierProgress) => void) {}

  /** Takes one parsed event. */
  feed(event: Record<string, unknown>): void {
    const f = this.facts;
    const type = typeof event.type === 'string' ? event.type : '(untyped)';
    this.count(type);
    if (f.contractVersion === null && typeof event.v === 'number') f.contractVersion = event.v;
    if (f.done !== null) {
      f.eventsAfterDone++;
      // Kane's result is final at test_md_done: a step, a verdict or a second result after it rewrites history.
      if (AFTER_DONE_FORBIDDEN.has(type)) this.violation(`${type} after test_md_done`);
    }
    switch (type) {
      case 'stream_start':
        f.cliVersion = readString(event.cli_version) ?? f.cliVersion;
        return;
      case 'test_md_step_start':
        return this.stepStart(event);
      case 'run_end':
        return this.runEnd(event);
      case 'test_md_bug_verdict':
        return this.bugVerdict(event);
      case 'test_md_step_end':
        return this.stepEnd(event);
      case 'test_md_summary':
        return this.summary(event);
      case 'test_md_done':
        f.done = {
          overallStatus: readString(event.overall_status),
          sessionId: readString(event.session_id),
          durationSeconds: readNumber(event.duration_s),
          shareUrl: readString(event.share_url),
        };
        return;
      case 'error':
        f.errorCount++;
        if (f.errors.length < KEEP) f.errors.push(readString(event.message) ?? JSON.stringify(event).slice(0, 300));
        return;
      case 'warning':
        if (f.warnings.length < KEEP) f.warnings.push(readString(event.message) ?? readString(event.code) ?? 'warning');
        return;
      default:
        return; // progress, triage internals and types newer than us: counted above, otherwise ignored
    }
  }

  /** Records an event-order or shape violation found outside the event itself (a repeated key in its line). */
  violation(what: string): void {
    this.facts.violationCount++;
    if (this.facts.violations.length < KEEP) this.facts.violations.push(what);
  }

  /** Everything read so far. */
  result(): StreamFacts {
    return this.facts;
  }

  private count(type: string): void {
    const counts = this.facts.typeCounts;
    if (counts[type] !== undefined) counts[type]++;
    else if (Object.keys(counts).length < MAX_TYPES) counts[type] = 1;
    else counts['(other)'] = (counts['(other)'] ?? 0) + 1;
  }

  private step(index: number): StepFacts {
    let step = this.facts.steps.get(index);
    if (!step) {
      step = {
        index,
        heading: null,
        headingConflict: false,
        started: false,
        status: null,
        endCount: 0,
        endConflict: false,
        durationSeconds: null,
        runFailed: false,
        reason: null,
        oneLiner: null,
        reasonCode: null,
        resultCode: null,
        runVerdict: null,
        bugVerdict: null,
      };
      this.facts.steps.set(index, step);
    }
    return step;
  }

  /** An event that names no step or a step that never started: a violation, kept apart for the record. */
  private orphan(what: string): void {
    if (this.facts.orphans.length < KEEP) this.facts.orphans.push(what);
    this.violation(what);
  }

  /**
   * The event's step index, when it names one a test can have: every index seen keeps a record, so an index
   * of a billion (or a billion indexes) would cost memory in proportion; one out of range is a violation.
   */
  private stepIndex(event: Record<string, unknown>, type: string): number | null {
    const index = readInt(event.step_index);
    if (index !== null && (index < 1 || index > MAX_STEP_INDEX)) {
      this.orphan(`${type} with step_index ${index}, outside 1..${MAX_STEP_INDEX}`);
      return null;
    }
    return index;
  }

  private stepStart(event: Record<string, unknown>): void {
    if (readInt(event.step_index) === null) return this.orphan('test_md_step_start without a step_index');
    const index = this.stepIndex(event, 'test_md_step_start');
    if (index === null) return;
    const step = this.step(index);
    const heading = readString(event.heading);
    if (step.started && heading !== step.heading) step.headingConflict = true;
    step.started = true;
    step.heading = heading;
    this.current = step;
    this.emit({ kind: 'step-start', step: index, heading: heading ?? '' });
  }

  private runEnd(event: Record<string, unknown>): void {
    const step = this.current;
    if (!step) return this.orphan('run_end outside any step');
    // A run's own credits; a failing replayed step has none of its own, only its investigation's, inside the verdict.
    const credits = readNumber(event.credits_consumed) ?? readNumber(readObject(event.verdict)?.credits_consumed);
    if (credits !== null && credits >= 0) this.facts.creditsConsumed = (this.facts.creditsConsumed ?? 0) + credits;
    const failed = event.status === 'failed';
    // A step may take several runs (healing, flows): the last failing one explains the step, else the last.
    if (!failed && step.runFailed) return;
    step.runFailed = failed;
    step.reason = readString(event.reason);
    step.oneLiner = readString(event.one_liner);
    step.reasonCode = readString(event.reason_code);
    step.resultCode = readInt(event.result_code);
    step.runVerdict = readVerdict(event.verdict);
  }

  private bugVerdict(event: Record<string, unknown>): void {
    if (readInt(event.step_index) !== null && this.stepIndex(event, 'test_md_bug_verdict') === null) return;
    const index = readInt(event.step_index) ?? this.current?.index ?? null;
    if (index === null) return this.orphan('test_md_bug_verdict without a step');
    const step = this.step(index);
    step.bugVerdict = mergeVerdicts(step.bugVerdict, readVerdict(event));
  }

  private stepEnd(event: Record<string, unknown>): void {
    if (readInt(event.step_index) === null) return this.orphan('test_md_step_end without a step_index');
    const index = this.stepIndex(event, 'test_md_step_end');
    if (index === null) return;
    const step = this.step(index);
    if (!step.started) this.orphan(`test_md_step_end for step ${index}, which never started`);
    const status = event.status === 'passed' || event.status === 'failed' ? event.status : null;
    step.endCount++;
    if (step.endCount > 1 && status !== step.status) step.endConflict = true;
    // A failure reported once stays a failure, whatever a duplicate end says.
    if (step.status !== 'failed') step.status = status ?? 'failed';
    step.durationSeconds = readNumber(event.duration_s) ?? step.durationSeconds;
    if (this.current === step) this.current = null;
    if (step.endCount === 1) {
      this.emit({ kind: 'step-end', step: index, heading: step.heading ?? '', status: step.status, durationSeconds: step.durationSeconds });
    }
  }

  private summary(event: Record<string, unknown>): void {
    const steps = readObject(event.steps) ?? {};
    this.facts.summary = {
      overallStatus: readString(event.overall_status),
      total: readInt(steps.total),
      passed: readInt(steps.passed),
      failed: readInt(steps.failed),
      skipped: readInt(steps.skipped),
      cancelled: readBool(event.cancelled),
      commitReason: readString(readObject(event.commit)?.reason),
    };
  }

  private emit(progress: VerifierProgress): void {
    try {
      this.onProgress?.(progress);
    } catch {
      // A broken listener must not change what Kane said.
    }
  }
}
