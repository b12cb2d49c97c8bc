// `elenchos evidence verify`: does a stored run still match the manifests written when it was sealed
// (each attempt's, written when the attempt ended, and the run's, which lists those as they were sealed)?
import { checkRunEvidence } from '../../evidence/check-evidence.js';
import { showStoredRun } from '../stored-runs/inspect-runs.js';

export interface EvidenceCheck {
  runId: string;
  dir: string;
  ok: boolean;
  /** One line per file that is missing, extra or changed (and a bad HMAC); a file of an attempt names it (`attempt 1: modified: attempts/01/agent.log`). */
  problems: string[];
}

/** Checks a run's files against its manifests, and their HMACs when `signingKey` is given. */
export async function verifyEvidence(options: { cwd: string; runId: string; signingKey?: string }): Promise<EvidenceCheck> {
  const shown = await showStoredRun(options.cwd, options.runId);
  const check = await checkRunEvidence(shown.dir, { signingKey: options.signingKey });
  return { runId: shown.record.runId, dir: shown.dir, ...check };
}
