// `elenchos evidence verify`: does a stored run still match the manifests written when it was sealed
// (each attempt's, written when the attempt ended, and the run's, which lists those as they were sealed)?
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { attemptsDir } from '../../evidence/layout.js';
import { verifyManifest } from '../../evidence/manifest.js';
import { showStoredRun } from '../stored-runs/inspect-runs.js';

export interface EvidenceCheck {
  runId: string;
  dir: string;
  ok: boolean;
  /** One line per file that is missing, extra or changed (and a bad HMAC); a file of an attempt names it (`attempt 1: modified: agent.log`). */
  problems: string[];
}

/** Checks a run's files against its manifests, and their HMACs when `signingKey` is given. */
export async function verifyEvidence(options: { cwd: string; runId: string; signingKey?: string }): Promise<EvidenceCheck> {
  const shown = await showStoredRun(options.cwd, options.runId);
  const check = await verifyManifest(shown.dir, { signingKey: options.signingKey });
  const problems = check.problems.map(namingAttempt);
  // Runs sealed before attempts were sealed on their own have no attempt manifests: nothing more to check.
  for (const name of (await readdir(attemptsDir(shown.dir)).catch(() => [] as string[])).sort()) {
    if (!/^\d+$/.test(name)) continue;
    const dir = path.join(attemptsDir(shown.dir), name);
    const own = await verifyManifest(dir, { signingKey: options.signingKey });
    // Not sealed on its own (an older run, or one killed in the attempt): the run's manifest covers it, or says it is missing.
    if (own.problems.length === 1 && own.problems[0] === 'manifest.json is missing') continue;
    for (const problem of own.problems) {
      // The file as the run folder names it: `attempt 1: modified: attempts/01/agent.log`.
      const line = `attempt ${Number(name)}: ${problem.replace(/^(modified|missing|extra): /, `$1: ${path.basename(attemptsDir(''))}/${name}/`)}`;
      if (!problems.includes(line)) problems.push(line);
    }
  }
  return { runId: shown.record.runId, dir: shown.dir, ok: check.ok && problems.length === 0, problems };
}

// `modified: attempts/01/agent.log` → `attempt 1: modified: attempts/01/agent.log`.
function namingAttempt(problem: string): string {
  const match = /^(modified|missing|extra): attempts\/(\d+)\/(.+)$/.exec(problem);
  return match ? `attempt ${Number(match[2])}: ${problem}` : problem;
}
