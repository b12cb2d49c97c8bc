// The one function that turns a run's outcome into the process exit code.
import { ExitCode, type ExitCodeValue } from '../../errors.js';

/** VERIFIED 0, FAILED 1, ERROR 2, interrupted 130. Takes strings: it also reads records from disk, where anything else is 2. */
export function exitCodeFor(state: string, reason: string | null): ExitCodeValue {
  if (reason === 'INTERRUPTED') return ExitCode.INTERRUPTED;
  if (state === 'VERIFIED') return ExitCode.VERIFIED;
  if (state === 'FAILED') return ExitCode.FAILED;
  return ExitCode.ERROR;
}
