// Does the stream fit the test file, and do Kane's own counts agree with its step events?
import type { StreamFacts } from './stream-state.js';

export interface DeclaredStepInfo {
  index: number;
  heading: string;
  optional: boolean;
}

export interface StreamProblem {
  /** pairing: the stream does not belong to this file; contradiction: Kane disagrees with itself. */
  kind: 'pairing' | 'contradiction';
  step: number | null;
  message: string;
}

const normalize = (heading: string) => heading.replace(/\s+/g, ' ').trim();

/** Steps Kane reported that the file does not have, or under another heading. */
export function checkPairing(facts: StreamFacts, declared: readonly DeclaredStepInfo[]): StreamProblem[] {
  const problems: StreamProblem[] = [];
  for (const step of facts.steps.values()) {
    const own = declared[step.index - 1];
    if (!own) {
      problems.push({
        kind: 'pairing',
        step: step.index,
        message: `Kane reported step ${step.index}, but the test file has ${declared.length} step(s)`,
      });
    } else if (step.headingConflict) {
      problems.push({ kind: 'pairing', step: step.index, message: `Kane reported two different headings for step ${step.index}` });
    } else if (step.heading !== null && normalize(step.heading) !== normalize(own.heading)) {
      problems.push({
        kind: 'pairing',
        step: step.index,
        message: `step ${step.index}: Kane reported the heading "${step.heading}", the test file says "${own.heading}"`,
      });
    }
  }
  return problems;
}

/** `test_md_done` vs `test_md_summary` vs every `test_md_step_end` (kane-cli issue #93 and friends). */
export function checkCounts(facts: StreamFacts, declared: readonly DeclaredStepInfo[]): StreamProblem[] {
  const problems: StreamProblem[] = [];
  const add = (message: string, step: number | null = null) => problems.push({ kind: 'contradiction', step, message });
  const { summary, done } = facts;
  let passed = 0;
  let failed = 0;
  for (const step of facts.steps.values()) {
    if (step.endConflict) add(`step ${step.index} was reported as ended ${step.endCount} times with different statuses`, step.index);
    if (step.status === 'passed') passed++;
    if (step.status === 'failed') failed++;
  }
  const notEnded = declared.filter((d) => facts.steps.get(d.index)?.status == null).length;
  if (!summary) {
    add('the stream has test_md_done but no test_md_summary');
  } else {
    if (done && summary.overallStatus !== null && done.overallStatus !== null && summary.overallStatus !== done.overallStatus) {
      add(`test_md_summary says ${summary.overallStatus}, test_md_done says ${done.overallStatus}`);
    }
    const compare = (what: string, claimed: number | null, seen: number) => {
      if (claimed !== null && claimed !== seen) add(`test_md_summary counts ${claimed} ${what} step(s), the step events show ${seen}`);
    };
    compare('passed', summary.passed, passed);
    compare('failed', summary.failed, failed);
    if (summary.skipped !== null && summary.skipped !== notEnded) {
      add(`test_md_summary counts ${summary.skipped} skipped step(s), but ${notEnded} step(s) of the test file never ended`);
    }
    if (summary.total !== null && summary.total !== declared.length) {
      add(`test_md_summary counts ${summary.total} step(s), the test file has ${declared.length}`);
    }
  }
  const overall = done?.overallStatus ?? summary?.overallStatus ?? null;
  if (overall === 'failed' && failed === 0 && summary?.cancelled !== true) add('Kane says the test failed, but no step failed');
  if (overall !== null && overall !== 'passed' && overall !== 'failed') add(`unknown overall_status "${overall}"`);
  // docs/kane.md#classification: an attempt passes only if Kane's overall result is a pass; a done event that does not say is no pass.
  if (done && overall === null) add('test_md_done carries no overall_status (nor does test_md_summary)');
  return problems;
}

/** kane-cli issue #93: an overall "passed" with a failed non-optional step (a false green, not a pass). */
export function falseGreen(facts: StreamFacts, declared: readonly DeclaredStepInfo[]): StreamProblem | null {
  const overall = facts.done?.overallStatus ?? facts.summary?.overallStatus;
  if (overall !== 'passed') return null;
  const failed = [...facts.steps.values()].filter((s) => s.status === 'failed' && declared[s.index - 1]?.optional !== true);
  // A summary count with no failed step event is checkCounts' contradiction, not this.
  if (failed.length === 0) return null;
  const which = failed.map((s) => s.index).join(', ');
  return {
    kind: 'contradiction',
    step: failed[0]!.index,
    message: `Kane says passed, but ${failed.length} step(s) failed (step ${which}) (kane-cli issue #93)`,
  };
}
