// The one function that turns a run's outcome into the process exit code.
import { ExitCode, type ExitCodeValue } from '../../errors.js';
import type { RunReason, RunState } from '../../states.js';

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
