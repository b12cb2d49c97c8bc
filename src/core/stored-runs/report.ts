// `elenchos report`: gathers one run's evidence and writes what a reporter renders of it outside the run folder.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { withGitEnvironment } from '../../git/git.js';
import { readFileHead } from '../../util/regular-file.js';
import { InputError } from '../../errors.js';
import { isDiskFull } from '../../process/run-scope.js';
import { checkRunEvidence } from '../../evidence/check-evidence.js';
import { attemptDir, EVIDENCE_FILES, reportsDir } from '../../evidence/layout.js';
import type { RunRecord } from '../../evidence/run-record.js';
import type { AttemptFile } from '../../evidence/attempt-record.js';
import { gatherAttemptEvidence, type AttemptEvidence } from './report-evidence.js';
import { showStoredRun } from './inspect-runs.js';

/** Everything a report shows of one run: the data; the rendering is a reporter's (reporters/html-report.ts). */
export interface ReportInput {
  record: RunRecord;
  attempts: (AttemptFile | null)[];
  /** Attempt number → small text files worth showing (prompt, logs), already truncated. */
  texts: Map<number, { name: string; text: string }[]>;
  manifest: { ok: boolean; problems: string[] } | null;
  /** Why the run's task waits for a person, when it does. */
  needsHuman?: { reasons: string[] } | null;
  /** Attempt number → screenshots, traces and Playwright's report beside its findings. */
  evidence?: Map<number, AttemptEvidence>;
  /** A best-of run: each candidate's own run, gathered the same way (side by side in the report). */
  candidates?: ({ name: string } & Omit<ReportInput, 'manifest' | 'needsHuman' | 'candidates'>)[];
}

export interface WriteReportOptions {
  cwd: string;
  /** The caller's environment: git's. */
  env: NodeJS.ProcessEnv;
  runId: string;
  out?: string;
  signingKey?: string;
  /** Turns the gathered data into the file's text (the caller picks the reporter). */
  render: (input: ReportInput) => string;
}

const SHOWN_FILES = [
  EVIDENCE_FILES.prompt,
  EVIDENCE_FILES.agentLog,
  EVIDENCE_FILES.appLog,
  EVIDENCE_FILES.setupLog,
  `${EVIDENCE_FILES.verifier}/${EVIDENCE_FILES.verifierStderr}`,
  `${EVIDENCE_FILES.workspace}/${EVIDENCE_FILES.diff}`,
  `${EVIDENCE_FILES.baseProbe}/${EVIDENCE_FILES.setupLog}`,
  `${EVIDENCE_FILES.baseProbe}/${EVIDENCE_FILES.appLog}`,
];
const MAX_TEXT = 64 * 1024;

/** Writes the report (default `.elenchos/reports/<run-id>.html`, so the run's manifest stays exact); returns its path. */
export function writeReport(options: WriteReportOptions): Promise<string> {
  // git under it runs with the caller's environment, as under the CLI.
  return withGitEnvironment(options.env, () => writeReportInScope(options));
}

async function writeReportInScope(options: WriteReportOptions): Promise<string> {
  const shown = await showStoredRun(options.cwd, options.runId);
  // What `evidence verify` and `apply` check: the run's manifest, each attempt's, each candidate's.
  const manifest = await checkRunEvidence(shown.dir, { signingKey: options.signingKey }).catch(() => null);
  const out = options.out ? path.resolve(options.cwd, options.out) : path.join(reportsDir(shown.root), `${shown.record.runId}.html`);
  const candidates: NonNullable<ReportInput['candidates']> = [];
  for (const c of shown.candidates) {
    if (!c.record) continue;
    candidates.push({ name: c.name, record: c.record, attempts: c.attempts, ...(await gatherRun(c.dir, c.record, c.attempts, out)) });
  }
  const html = options.render({
    record: shown.record,
    attempts: shown.attempts,
    ...(await gatherRun(shown.dir, shown.record, shown.attempts, out)),
    manifest,
    needsHuman: shown.needsHuman,
    ...(candidates.length > 0 ? { candidates } : {}),
  });
  try {
    await mkdir(path.dirname(out), { recursive: true });
    await writeFile(out, html);
  } catch (error) {
    // A folder, a path under a file, a place that cannot be written: the user's --out, one line, exit 3.
    if (isDiskFull(error)) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new InputError(`--out ${out}: cannot write the report there (${code}); choose a file path in a writable folder`, {
      cause: error,
    });
  }
  return out;
}

/** The texts and evidence files of one run's attempts (a plain run, or one candidate of a best-of run). */
async function gatherRun(
  runDir: string,
  record: RunRecord,
  attempts: (AttemptFile | null)[],
  out: string,
): Promise<{ texts: ReportInput['texts']; evidence: Map<number, AttemptEvidence> }> {
  const texts = new Map<number, { name: string; text: string }[]>();
  for (const summary of record.attempts) {
    const dir = attemptDir(runDir, summary.number);
    const files: { name: string; text: string }[] = [];
    for (const name of SHOWN_FILES) {
      // Only the head is read: a stored file may be of any size, or not a file at all in a planted run folder.
      const head = await readFileHead(path.join(dir, name), MAX_TEXT);
      if (!head || head.size === 0) continue;
      const text = head.bytes.toString('utf8');
      files.push({ name, text: head.size > MAX_TEXT ? `${text}\n… (${head.size - MAX_TEXT} more bytes in ${name})` : text });
    }
    texts.set(summary.number, files);
  }
  const evidence = new Map<number, AttemptEvidence>();
  for (const [i, summary] of record.attempts.entries()) {
    const findings = attempts[i]?.findings ?? [];
    evidence.set(summary.number, await gatherAttemptEvidence(attemptDir(runDir, summary.number), findings, path.dirname(out)));
  }
  return { texts, evidence };
}
