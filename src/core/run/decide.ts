// How a run ends, as pure functions, in one place: after each attempt whether it repairs, re-verifies or
// finishes (the repairs and verifier retries it has used against their bounds); what a fault from outside
// its steps (a full disk, Ctrl-C, a best-of stop) makes of that outcome when it is sealed; and the exit code
// (docs/verification.md#the-loop, docs/exit-codes.md).
import { ExitCode, type ExitCodeValue } from '../../errors.js';
import type { FinalRunState, RunReason, RunState, VerdictEndReason, VerdictStatus } from '../../states.js';
import type { AttemptRecord, Terminal } from './run-context.js';

export interface LoopLimits {
  maxRepairAttempts: number;
  maxVerifierRetries: number;
  /** `run` repairs; `verify` never does. */
  repairs: boolean;
}

export interface LoopState {
  repairsUsed: number;
  /** Re-verifications used since the last agent turn: they start again after each repair. */
  retriesUsed: number;
  /** What the next attempt is. */
  kind: AttemptRecord['kind'];
}

export type Decision =
  { next: 'finish'; state: FinalRunState; reason: VerdictEndReason | null } | { next: 'repair' } | { next: 'reverify' };

export type LoopStep = { next: 'finish'; terminal: Terminal } | { next: 'repair' | 'reverify'; state: LoopState };

export function firstState(limits: LoopLimits): LoopState {
  return { repairsUsed: 0, retriesUsed: 0, kind: limits.repairs ? 'agent' : 'verify' };
}

/** PASS ends VERIFIED; FAIL repairs while repairs last; verifier trouble re-verifies without charging repairs. */
export function decideNext(status: VerdictStatus, state: LoopState, limits: LoopLimits): Decision {
  switch (status) {
    case 'PASS':
      return { next: 'finish', state: 'VERIFIED', reason: null };
    case 'FAIL':
      return limits.repairs && state.repairsUsed < limits.maxRepairAttempts
        ? { next: 'repair' }
        : { next: 'finish', state: 'FAILED', reason: 'PRODUCT_FAILURE' };
    case 'VERIFIER_ERROR':
    case 'INCONCLUSIVE':
      return state.retriesUsed < limits.maxVerifierRetries ? { next: 'reverify' } : { next: 'finish', state: 'ERROR', reason: status };
  }
}

/** What follows an attempt that ended with `status` (and no terminal of its own). */
export function afterAttempt(state: LoopState, status: AttemptRecord['status'], summary: string, limits: LoopLimits): LoopStep {
  if (status === 'NOT_VERIFIED' || status === 'APP_FAILED')
    return { next: 'finish', terminal: { state: 'ERROR', reason: 'INTERNAL_ERROR', message: 'an attempt ended without a verdict' } };
  const decision = decideNext(status, state, limits);
  if (decision.next === 'finish') {
    const message =
      decision.state === 'VERIFIED'
        ? null
        : decision.reason === 'PRODUCT_FAILURE'
          ? limits.repairs
            ? `product failure remained after ${state.repairsUsed} repair(s): ${summary}`
            : summary
          : `${status} ${state.retriesUsed + 1} time(s) in a row: ${summary}`;
    return { next: 'finish', terminal: { state: decision.state, reason: decision.reason, message } };
  }
  if (decision.next === 'repair') return { next: 'repair', state: { repairsUsed: state.repairsUsed + 1, retriesUsed: 0, kind: 'agent' } };
  return { next: 'reverify', state: { ...state, retriesUsed: state.retriesUsed + 1, kind: 'reverify' } };
}

/** What stood outside the run's steps when its outcome is sealed (run-guard.ts watches for them). */
export interface OutsideFaults {
  /** The first evidence write that failed for lack of space, or null. */
  diskFull: string | null;
  /** The caller interrupted (Ctrl-C), or a best-of run stopped this candidate. */
  interrupted: boolean;
  /** A best-of candidate: why its run stopped it (--stop-at-first), null when it did not (Ctrl-C is not a stop). */
  stopped: string | null;
}

/**
 * The outcome to seal: a full disk, or a signal that came after the verdict, is never sealed as the verdict
 * (nor exits 0). A best-of candidate stopped because another was VERIFIED first is sealed ERROR STOPPED,
 * unless it had reached VERIFIED itself: that verdict stands.
 */
export function sealedOutcome(decided: Terminal, faults: OutsideFaults): Terminal {
  if (faults.diskFull) return decided.reason === 'DISK_FULL' ? decided : diskFullTerminal(faults.diskFull);
  if (faults.stopped !== null)
    return decided.state === 'VERIFIED' ? decided : { state: 'ERROR', reason: 'STOPPED', message: faults.stopped };
  if (faults.interrupted && decided.reason !== 'INTERRUPTED') {
    const was = `${decided.state}${decided.reason ? ` ${decided.reason}` : ''}`;
    return {
      state: 'ERROR',
      reason: 'INTERRUPTED',
      message: `interrupted after the run had ended ${was}, before its evidence was sealed`,
    };
  }
  return decided;
}

/** ERROR DISK_FULL, saying which write failed. */
export function diskFullTerminal(why: string): Terminal {
  return { state: 'ERROR', reason: 'DISK_FULL', message: `${why}: every child was stopped; free some space and run again` };
}

/** VERIFIED 0, FAILED 1, ERROR 2 (and a RUNNING record: it never finished), interrupted 130. */
export function exitCodeFor(state: RunState, reason: RunReason | null): ExitCodeValue {
  if (reason === 'INTERRUPTED') return ExitCode.INTERRUPTED;
  if (state === 'VERIFIED') return ExitCode.VERIFIED;
  if (state === 'FAILED') return ExitCode.FAILED;
  return ExitCode.ERROR;
}

// The worst first: an interrupt, then bad input, then shares that were not one whole set, then ERROR, then FAILED.
const SEVERITY: readonly number[] = [
  ExitCode.INTERRUPTED,
  ExitCode.INPUT,
  ExitCode.INCOMPLETE,
  ExitCode.ERROR,
  ExitCode.FAILED,
  ExitCode.VERIFIED,
];

/** One exit code for several runs (`run <task…>`, `join`): the worst of theirs; 0 only when every one is 0 (and there is one). */
export function worstExitCode(codes: readonly number[]): number {
  if (codes.length === 0) return ExitCode.ERROR;
  const rank = (code: number) => (SEVERITY.includes(code) ? SEVERITY.indexOf(code) : 0);
  return codes.reduce((worst, code) => (rank(code) < rank(worst) ? code : worst));
}
