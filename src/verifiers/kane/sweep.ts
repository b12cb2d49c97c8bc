// The exploratory defect sweep: after a PASS, one bounded `kane-cli run "<objective>"` against the same
// app, looking for bugs the test did not ask about. Only a confirmed product bug counts: with --bug-detection
// stop the exit code can be 0 while run_end.verdict reports one, so the verdict decides (docs/sweep.md#what-it-decides).
import type { Task } from '../../contract/task-schema.js';
import { runProcess } from '../../process/spawn.js';
import { NdjsonReader } from '../../util/ndjson-reader.js';
import type { Finding, Verdict } from '../types.js';
import type { SweepOutcome } from '../../states.js';
import { kaneChildEnv } from './kane-invocation.js';
import { readInt, readNumber, readObject, readString, readVerdict } from './kane-values.js';
import { verifierFiles } from '../../evidence/layout.js';

export interface SweepOptions {
  task: Task;
  url: string;
  command: string;
  baseEnv: NodeJS.ProcessEnv;
  env: Record<string, string>;
  /** `sweep/` inside the attempt's verifier evidence. */
  evidenceDir: string;
  maxSteps: number;
  timeoutMs: number;
  signal: AbortSignal;
}

export type SweepResult = {
  /** `bug`: a confirmed product finding (the attempt becomes FAIL); `clean`; `note`: a finding that is not confirmed; `error`: no usable result. */
  outcome: SweepOutcome;
  message: string;
  finding: Finding | null;
  credits: number | null;
  exitCode: number | null;
  durationMs: number;
  objective: string;
};

/** The sweep's objective, built from the contract: where to look, what the feature promises, what to report. */
export function sweepObjective(task: Task, url: string): string {
  const promises = task.acceptanceCriteria.map((c) => `${c.id}: ${c.description}`).join('; ');
  return `Explore the app at ${url} as a tester looking for defects in "${task.title}" (${task.description}). It promises: ${promises}. Try edge cases around these promises and report any product bug you can confirm.`;
}

/** Runs the sweep; never throws for Kane's own failures (they become `error`). */
export async function runSweep(options: SweepOptions): Promise<SweepResult> {
  const objective = sweepObjective(options.task, options.url);
  const { env, authArgs } = kaneChildEnv(options.baseEnv, options.env);
  const args = [
    'run',
    objective,
    '--agent',
    '--headless',
    '--url',
    options.url,
    '--bug-detection',
    'stop',
    '--max-steps',
    String(options.maxSteps),
    ...authArgs,
  ];
  const reader = new NdjsonReader();
  let runEnd: Record<string, unknown> | null = null;
  let errorMessage: string | null = null;
  const result = await runProcess(options.command, args, {
    cwd: options.evidenceDir,
    env,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    stdoutFile: verifierFiles(options.evidenceDir).verifierEvents,
    stderrFile: verifierFiles(options.evidenceDir).verifierStderr,
    maxOutputBytes: 64 * 1024 * 1024,
    onStdoutLine: (line) => {
      const event = reader.read(line);
      if (!event) return;
      if (event.type === 'run_end') runEnd = event;
      if (event.type === 'error') errorMessage ??= readString(event.message);
    },
  });
  const base = { objective, exitCode: result.exitCode, durationMs: result.durationMs };
  const end = runEnd as Record<string, unknown> | null;
  const credits = end ? (readNumber(end.credits_consumed) ?? readNumber(readObject(end.verdict)?.credits_consumed)) : null;
  if (result.spawnError)
    return {
      ...base,
      outcome: 'error',
      message: `the sweep could not start ${options.command} (${result.spawnError.code ?? result.spawnError.message})`,
      finding: null,
      credits,
    };
  if (result.timedOut)
    return {
      ...base,
      outcome: 'error',
      message: `the sweep did not finish within ${Math.round(options.timeoutMs / 1000)}s (killed)`,
      finding: null,
      credits,
    };
  if (!end || errorMessage)
    return {
      ...base,
      outcome: 'error',
      message: `the sweep gave no result (exit code ${result.exitCode}${errorMessage ? `: ${errorMessage}` : ''})`,
      finding: null,
      credits,
    };
  const verdict = readVerdict(end.verdict);
  const resultCode = readInt(end.result_code);
  if (verdict === null && end.status === 'passed')
    return { ...base, outcome: 'clean', message: 'the sweep found nothing wrong', finding: null, credits };
  const finding = sweepFinding(end, verdict, resultCode);
  // Family before confirmed: a replay's investigation can leave an application issue unconfirmed at high confidence
  // (its citations not verified), so only an application issue that Kane confirmed (or coded 740) is the product's.
  const confirmed = verdict?.family === 'application_issue' && (verdict.confirmed === true || resultCode === 740);
  if (confirmed)
    return {
      ...base,
      outcome: 'bug',
      message: `the exploratory sweep found a confirmed product bug: ${verdict?.bugTitle ?? verdict?.oneLiner ?? 'see the finding'}`,
      finding,
      credits,
    };
  return {
    ...base,
    outcome: 'note',
    message: `the sweep reported something it did not confirm (${verdict?.family ?? 'no verdict'}${verdict?.downgradeReason ? `, ${verdict.downgradeReason}` : ''}): ${verdict?.bugTitle ?? readString(end.one_liner) ?? ''}`,
    finding: { ...finding, kind: 'unattributed_failure' },
    credits,
  };
}

function sweepFinding(end: Record<string, unknown>, verdict: Verdict | null, resultCode: number | null): Finding {
  return {
    step: null,
    heading: 'exploratory sweep',
    kind: 'product_failure',
    reason: verdict?.oneLiner ?? readString(end.one_liner) ?? readString(end.summary),
    reasonCode: readString(end.reason_code),
    resultCode,
    verdict,
    sessionId: null,
    evidencePack: null,
  };
}
