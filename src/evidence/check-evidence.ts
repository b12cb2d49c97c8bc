// What `evidence verify` and `apply` both check of a stored run folder: its manifest, and each attempt's own
// manifest (written when the attempt ended, see seal-attempt.ts), with their HMACs when a key is given; for
// a best-of run, each candidate's folder the same way (each was sealed as a run of its own when it ended).
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { EVIDENCE_FILE_LIMIT } from '../util/json-file.js';
import { readRegularFile } from '../util/regular-file.js';
import { attemptsDir, candidatesDir, EVIDENCE_FILES, runJsonPath } from './layout.js';
import { verifyManifest, type ManifestCheck, type ManifestOptions } from './manifest.js';

const UNSEALED = 'manifest.json is missing';

/**
 * Checks `runDir` against its manifest and every sealed attempt's, and a best-of run's candidates each
 * likewise; a problem of an attempt or a candidate names it (`attempt 1: modified: attempts/01/agent.log`,
 * `candidate b: attempt 1: modified: candidates/b/attempts/01/agent.log`).
 */
export async function checkRunEvidence(runDir: string, options: ManifestOptions = {}): Promise<ManifestCheck> {
  const check = await checkSealedFolder(runDir, '', options);
  const problems = [...check.problems];
  const sealed = await sealedCandidates(runDir);
  const folders = await readdir(candidatesDir(runDir)).catch(() => [] as string[]);
  for (const name of [...new Set([...folders, ...sealed])].sort()) {
    const own = await checkSealedFolder(path.join(candidatesDir(runDir), name), `${EVIDENCE_FILES.candidates}/${name}/`, options);
    // A candidate that ended before its run existed has no manifest: the run's covers what it has. One the
    // run's record says was sealed must still have its own (deleted with a rewrite, the rewrite would pass).
    if (own.problems.length === 1 && own.problems[0] === UNSEALED) {
      if (sealed.includes(name))
        problems.push(`candidate ${name}: missing: ${EVIDENCE_FILES.candidates}/${name}/${EVIDENCE_FILES.manifest}`);
      continue;
    }
    for (const problem of own.problems) problems.push(`candidate ${name}: ${problem}`);
  }
  return { ok: check.ok && problems.length === 0, problems };
}

// The candidates the run's record says ended with a sealed run of their own (its duration came from that
// record; one that failed before its run existed has none). Read leniently: the manifest check covers run.json.
async function sealedCandidates(runDir: string): Promise<string[]> {
  try {
    const bytes = await readRegularFile(runJsonPath(runDir), { maxBytes: EVIDENCE_FILE_LIMIT });
    const record = JSON.parse(bytes.toString('utf8')) as { candidates?: unknown };
    if (!Array.isArray(record.candidates)) return [];
    return record.candidates.flatMap((c: { name?: unknown; durationMs?: unknown }) =>
      typeof c?.name === 'string' && /^[A-Za-z0-9][\w-]*$/.test(c.name) && typeof c.durationMs === 'number' ? [c.name] : [],
    );
  } catch {
    return [];
  }
}

// One run folder (the run's, or a candidate's): its manifest and its attempts' own. Paths in problems are
// prefixed with `prefix` so that they name the file from the top run folder.
async function checkSealedFolder(dir: string, prefix: string, options: ManifestOptions): Promise<ManifestCheck> {
  const check = await verifyManifest(dir, options);
  const problems = check.problems.map((problem) => namingAttempt(withPrefix(problem, prefix), prefix));
  const attempts = attemptsDir(dir);
  // Runs sealed before attempts were sealed on their own have no attempt manifests: nothing more to check.
  for (const name of (await readdir(attempts).catch(() => [] as string[])).sort()) {
    if (!/^\d+$/.test(name)) continue;
    const own = await verifyManifest(path.join(attempts, name), options);
    // Not sealed on its own (an older run, or one killed in the attempt): the run's manifest covers it, or says it is missing.
    if (own.problems.length === 1 && own.problems[0] === UNSEALED) continue;
    for (const problem of own.problems) {
      // The file as the run folder names it: `attempt 1: modified: attempts/01/agent.log`.
      const line = `attempt ${Number(name)}: ${withPrefix(problem, `${prefix}${EVIDENCE_FILES.attempts}/${name}/`)}`;
      if (!problems.includes(line)) problems.push(line);
    }
  }
  return { ok: check.ok && problems.length === 0, problems };
}

// `modified: agent.log` → `modified: attempts/01/agent.log` (with prefix `attempts/01/`); other problems as they are.
function withPrefix(problem: string, prefix: string): string {
  return problem.replace(/^(modified|missing|extra): /, `$1: ${prefix}`);
}

// `modified: attempts/01/agent.log` → `attempt 1: modified: attempts/01/agent.log`.
function namingAttempt(problem: string, prefix: string): string {
  const escaped = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(`^(modified|missing|extra): ${escaped}${EVIDENCE_FILES.attempts}/(\\d+)/(.+)$`).exec(problem);
  return match ? `attempt ${Number(match[2])}: ${problem}` : problem;
}
