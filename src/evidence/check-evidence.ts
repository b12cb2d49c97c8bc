// What `evidence verify` and `apply` both check of a stored run folder: its manifest, and each attempt's own
// manifest (written when the attempt ended, see seal-attempt.ts), with their HMACs when a key is given.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { attemptsDir } from './layout.js';
import { verifyManifest, type ManifestCheck, type ManifestOptions } from './manifest.js';

/** Checks `runDir` against its manifest and every sealed attempt's; a problem of an attempt names it (`attempt 1: modified: attempts/01/agent.log`). */
export async function checkRunEvidence(runDir: string, options: ManifestOptions = {}): Promise<ManifestCheck> {
  const check = await verifyManifest(runDir, options);
  const problems = check.problems.map(namingAttempt);
  const attempts = attemptsDir(runDir);
  // Runs sealed before attempts were sealed on their own have no attempt manifests: nothing more to check.
  for (const name of (await readdir(attempts).catch(() => [] as string[])).sort()) {
    if (!/^\d+$/.test(name)) continue;
    const own = await verifyManifest(path.join(attempts, name), options);
    // Not sealed on its own (an older run, or one killed in the attempt): the run's manifest covers it, or says it is missing.
    if (own.problems.length === 1 && own.problems[0] === 'manifest.json is missing') continue;
    for (const problem of own.problems) {
      // The file as the run folder names it: `attempt 1: modified: attempts/01/agent.log`.
      const line = `attempt ${Number(name)}: ${problem.replace(/^(modified|missing|extra): /, `$1: ${path.basename(attempts)}/${name}/`)}`;
      if (!problems.includes(line)) problems.push(line);
    }
  }
  return { ok: check.ok && problems.length === 0, problems };
}

// `modified: attempts/01/agent.log` → `attempt 1: modified: attempts/01/agent.log`.
function namingAttempt(problem: string): string {
  const match = /^(modified|missing|extra): attempts\/(\d+)\/(.+)$/.exec(problem);
  return match ? `attempt ${Number(match[2])}: ${problem}` : problem;
}
