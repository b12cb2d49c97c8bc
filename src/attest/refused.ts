// The one error of a check that does not hold: `attest verify` exits 1 with one line naming the check.
import { ElenchosError, ExitCode, type ExitCodeValue } from '../errors.js';

/** An attestation that does not hold: exit 1, one line naming the check that failed. */
export class AttestationRefusedError extends ElenchosError {
  override readonly code = 'ELENCHOS_ATTESTATION_REFUSED';
  override readonly exitCode: ExitCodeValue = ExitCode.FAILED;
  constructor(
    readonly check: string,
    message: string,
  ) {
    super(`attestation refused (${check}): ${message}`);
  }
}
