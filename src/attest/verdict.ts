// What a `--json` verdict document (`verify` or `merge`) says, read for an attestation: the commit, the
// files each run locked by hash, and each criterion's result.
import { InputError } from '../errors.js';
import { RunRecordSchema, type RunRecord } from '../evidence/run-record.js';
import type { ConfigurationFile, ConfigurationRole } from './statement.js';
import { GUARD_NAMES, type GuardName } from '../states.js';

export interface VerdictFacts {
  /** Each distinct commit the runs verified (their worktree's base). */
  commits: string[];
  /** Each distinct config file the runs named (repository-relative), null for defaults only. */
  configFiles: (string | null)[];
  contractFiles: ConfigurationFile[];
  passedTests: string[];
  failedTests: string[];
  /** True when there was at least one task and every one is VERIFIED. */
  allVerified: boolean;
  /** Each task's guards as its run record says (none stood for a refused task or a record without them). */
  guards: Record<string, { stood: GuardName[]; missing: GuardName[] }>;
}

// The run record's `task-canonical` is a digest of the parsed contract, not of a file: it cannot be
// compared with a commit's bytes, and `task` covers the same file.
const FILE_ROLES = new Set<string>(['task', 'test', 'import', 'variables', 'spec', 'test-lock']);

/** Reads the `runs` of a verdict document; a task that is not VERIFIED (or was refused) fails as `<file>#verdict`. */
export function readVerdict(document: string): VerdictFacts {
  let runs: unknown;
  try {
    runs = (JSON.parse(document) as { runs?: unknown }).runs;
  } catch {
    runs = undefined;
  }
  if (!Array.isArray(runs)) throw new InputError('--attest: the --json output holds no "runs" array; nothing to attest');
  const records: RunRecord[] = [];
  const failedTests: string[] = [];
  const guards: VerdictFacts['guards'] = {};
  const none = { stood: [] as GuardName[], missing: [...GUARD_NAMES] };
  for (const [i, entry] of runs.entries()) {
    const refused = entry as { file?: unknown; refused?: unknown };
    if (typeof refused.refused === 'string' && typeof refused.file === 'string') {
      failedTests.push(`${refused.file}#verdict`);
      guards[refused.file] = none;
      continue;
    }
    const parsed = RunRecordSchema.safeParse(entry);
    if (!parsed.success) throw new InputError(`--attest: runs[${i}] of the --json output is not a run record`);
    records.push(parsed.data);
  }
  const passedTests: string[] = [];
  const files = new Map<string, ConfigurationFile>();
  for (const record of records) {
    const file = record.task.file;
    guards[file] = record.guards ? { stood: record.guards.stood, missing: record.guards.missing } : none;
    // A best-of or joined run's verdict is its winner's (its candidates each hold their own attempts).
    const winner = record.candidates?.find((c) => c.name === record.winner?.name);
    const criteria = record.attempts.at(-1)?.criteria ?? winner?.criteria ?? [];
    for (const c of criteria) (c.status === 'PASS' ? passedTests : failedTests).push(`${file}#${c.id}`);
    // Tampering or an unstable workspace can end a run ERROR with every criterion passed: the run fails too.
    if (record.state !== 'VERIFIED') failedTests.push(`${file}#verdict`);
    for (const f of record.contract.files) {
      if (!FILE_ROLES.has(f.role)) continue;
      const key = `${f.role}\0${f.path}`;
      // Two runs that read two versions of one file did not verify one set of inputs: no single statement holds.
      if (files.has(key) && files.get(key)!.sha256 !== f.sha256)
        throw new InputError(`--attest: the runs read two versions of ${f.path}; verify every task at one commit, then attest`);
      files.set(key, { path: f.path, sha256: f.sha256, role: f.role as ConfigurationRole });
    }
  }
  const configFile = (r: RunRecord) => (typeof r.configFile === 'string' ? r.configFile.split('\\').join('/') : null);
  return {
    commits: [...new Set(records.map((r) => r.workspace.base))],
    configFiles: [...new Set(records.map(configFile))],
    contractFiles: [...files.values()],
    passedTests,
    failedTests,
    allVerified: runs.length > 0 && failedTests.length === 0 && records.every((r) => r.state === 'VERIFIED'),
    guards,
  };
}
