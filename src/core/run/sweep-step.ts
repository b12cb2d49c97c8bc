// The sweep step of an attempt: after a PASS, while the app still runs, Kane explores for bugs the test
// did not ask about; a confirmed product bug turns the attempt into a (repairable) FAIL.
import { mkdir } from 'node:fs/promises';
import type { VerificationResult } from '../../verifiers/types.js';
import { runSweep, type SweepResult } from '../../verifiers/kane/sweep.js';
import type { AttemptRecord, RunContext } from './run-context.js';
import { sweepDir } from '../../evidence/layout.js';

export type SweepStep =
  | { ran: false }
  | { ran: true; sweep: SweepResult; status: VerificationResult['status']; summary: string }
  | { ran: false; overBudget: string };

/** Runs the configured sweep after a PASS; the caller keeps the app up until it returns. */
export async function sweepAfterPass(
  ctx: RunContext,
  record: AttemptRecord,
  verification: VerificationResult,
  url: string,
  verifierDir: string,
): Promise<SweepStep> {
  const config = ctx.config.verifier.sweep;
  if (!config || verification.status !== 'PASS') return { ran: false };
  const over = ctx.budget.gate('verifier');
  if (over) return { ran: false, overBudget: over };
  const evidenceDir = sweepDir(verifierDir);
  await mkdir(evidenceDir, { recursive: true });
  const kaneCommand = ctx.resolved.verifierType === 'kane' ? ctx.config.verifier.command : undefined;
  const sweep = await runSweep({
    task: ctx.resolved.task,
    url,
    command: config.command ?? kaneCommand ?? 'kane-cli',
    baseEnv: ctx.env,
    env: ctx.config.verifier.env,
    evidenceDir,
    maxSteps: config.maxSteps,
    timeoutMs: config.timeoutSeconds * 1000,
    signal: ctx.signal,
  });
  ctx.budget.recordVerifier(sweep.credits, sweep.durationMs);
  record.cost.kaneCredits = sweep.credits === null ? record.cost.kaneCredits : (record.cost.kaneCredits ?? 0) + sweep.credits;
  if (sweep.outcome === 'bug' && sweep.finding) {
    record.findings = [...record.findings, sweep.finding];
    return { ran: true, sweep, status: 'FAIL', summary: sweep.message };
  }
  // Anything else is a note beside the PASS: the test the contract names is what decides.
  if (sweep.finding) record.findings = [...record.findings, sweep.finding];
  return { ran: true, sweep, status: verification.status, summary: `${verification.summary}; ${sweep.message}` };
}
