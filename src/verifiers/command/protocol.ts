// Elenchos's own verifier event protocol (docs/command-verifier.md), read event by event.
import type { NdjsonObject } from '../../util/ndjson-reader.js';
import type { VerifierProgress } from '../types.js';
import type { CommandFailureKind, CommandStepStatus } from '../../states.js';

export type ReportedStep = {
  step: number;
  title: string | null;
  status: CommandStepStatus;
  failure: CommandFailureKind | null;
  message: string | null;
};

/** What a command verifier said: its steps and its final status (null when it never said `done`). */
export class ProtocolState {
  readonly steps = new Map<number, ReportedStep>();
  readonly problems: string[] = [];
  done: 'passed' | 'failed' | null = null;
  private ended = false;
  private readonly started = new Set<number>();

  constructor(private readonly onProgress?: (progress: VerifierProgress) => void) {}

  /** Feeds one event; unknown types and fields are ignored, malformed known events are problems. */
  feed(event: NdjsonObject): void {
    if (this.ended) {
      this.problems.push(`an event after "done": ${String(event.type)}`);
      return;
    }
    const step = typeof event.step === 'number' && Number.isInteger(event.step) && event.step > 0 ? event.step : null;
    const title = typeof event.title === 'string' ? event.title : null;
    if (event.type === 'step_start') {
      if (step === null) {
        this.problems.push(`a step_start without a valid "step" (1-based): ${JSON.stringify(event).slice(0, 200)}`);
        return;
      }
      this.started.add(step);
      this.onProgress?.({ kind: 'step-start', step, heading: title ?? `step ${step}` });
    } else if (event.type === 'step_end') {
      const status = event.status === 'passed' || event.status === 'failed' || event.status === 'skipped' ? event.status : null;
      if (step === null || status === null) {
        this.problems.push(
          `a step_end without a valid "step" (1-based) and "status" (passed|failed|skipped): ${JSON.stringify(event).slice(0, 200)}`,
        );
        return;
      }
      if (this.steps.has(step)) this.problems.push(`step ${step} was reported twice`);
      // A step that ran has a start; only a skipped one may end without (it never ran).
      if (status !== 'skipped' && !this.started.has(step)) this.problems.push(`step ${step} ended ${status} without a step_start`);
      const failure = event.failure === 'product' || event.failure === 'verifier' ? event.failure : status === 'failed' ? 'unknown' : null;
      const message = typeof event.message === 'string' ? event.message : null;
      this.steps.set(step, { step, title, status, failure, message });
      if (status !== 'skipped')
        this.onProgress?.({
          kind: 'step-end',
          step,
          heading: title ?? `step ${step}`,
          status,
          durationSeconds: typeof event.seconds === 'number' ? event.seconds : null,
        });
    } else if (event.type === 'done') {
      this.ended = true;
      if (event.status === 'passed' || event.status === 'failed') this.done = event.status;
      else this.problems.push(`"done" without a status of passed or failed`);
    }
  }
}
