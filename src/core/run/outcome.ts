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
