// `elenchos evidence verify`: does a stored run still match the manifest written when it was sealed?
import { verifyManifest } from '../evidence/manifest.js';
import { showStoredRun } from './inspect-runs.js';

export interface EvidenceCheck {
  runId: string;
  dir: string;
  ok: boolean;
  /** One line per file that is missing, extra or changed (and a bad HMAC). */
  problems: string[];
}

/** Checks a run's files against its manifest, and its HMAC when `signingKey` is given. */
export async function verifyEvidence(options: { cwd: string; runId: string; signingKey?: string }): Promise<EvidenceCheck> {
  const shown = await showStoredRun(options.cwd, options.runId);
  const check = await verifyManifest(shown.dir, { signingKey: options.signingKey });
  return { runId: shown.record.runId, dir: shown.dir, ok: check.ok, problems: check.problems };
}
