// Human rendering of `elenchos show <run-id>`.
import path from 'node:path';
import { writeHuman, type CliIO } from '../cli-io.js';
import type { NeedsHuman } from '../core/stored-runs/needs-human.js';
import type { RunRecord } from '../evidence/run-record.js';
import type { AttemptFile } from '../evidence/attempt-record.js';
import { describeFinding } from '../core/run/prompt.js';
import { agentReportsDollars, describeAgentEnd } from './agent-end.js';
import { appFailureOf, describeAppFailure } from './app-failure.js';
import { candidateTable } from './best-of-summary.js';
import { describeAgentSpend, showsKaneCredits } from './run-list.js';
import { describeGuards } from './guard-lines.js';

interface ShownRun {
  root: string;
  dir: string;
  record: RunRecord;
  attempts: (AttemptFile | null)[];
  needsHuman?: NeedsHuman | null;
  /** A best-of run's candidates, each a run of its own. */
  candidates?: { name: string; dir: string; record: RunRecord | null; attempts: (AttemptFile | null)[] }[];
  /** The run ids of the run's group, oldest first (docs/scale.md). */
  groupRuns?: string[];
  /** RUNNING in its record, but its process on this host is gone (only `elenchos gc` seals it). */
  dead?: boolean;
}

/** The run's verdict, each attempt with its criteria table and findings, and where the evidence is. */
export function renderRun(shown: ShownRun, io: CliIO): void {
  const { record } = shown;
  const out = (line = '') => writeHuman(io.stdout, line);
  out(`run ${record.runId} · ${record.mode} · task ${record.task.id} (${record.task.file})`);
  out(`${record.state}${record.reason ? ` (${record.reason})` : ''}${record.message ? `: ${record.message}` : ''}`);
  if (shown.needsHuman) {
    out(`NEEDS_HUMAN: task ${record.task.id} gets no agent until a person looks (elenchos ack ${record.task.file}):`);
    for (const reason of shown.needsHuman.reasons) out(`  ${reason}`);
  }
  if (record.group) {
    const others = (shown.groupRuns ?? []).filter((id) => id !== record.runId);
    const together = others.length > 0 ? `ran together with ${others.join(', ')}` : 'ran in';
    out(
      `${together} (group ${record.group.id}: ${record.group.tasks} task(s)${record.group.share ? `, share ${record.group.share.index}/${record.group.share.total}` : ''})`,
    );
  }
  const unfinished = shown.dead
    ? `, never finished: its process (pid ${record.pid}) is gone; elenchos gc seals it ABANDONED and stops what it left running`
    : ', never finished';
  out(`started ${record.startedAt}${record.durationMs !== null ? `, took ${(record.durationMs / 1000).toFixed(1)}s` : unfinished}`);
  if (record.cost) {
    const c = record.cost;
    // An agent that reports no dollars (Codex) spent an unknown amount, not $0 (null; 0 in records before that).
    const kane = showsKaneCredits(record) ? `, Kane ${c.kaneCredits} credit(s)` : '';
    out(`spent: ${describeAgentSpend({ mode: record.mode, cost: c }, agentReportsDollars(shown.attempts))}${kane}`);
  }
  out(
    `contract: ${record.contract.files
      .filter((f) => f.role !== 'task-canonical')
      .map((f) => `${f.path} ${f.sha256.slice(0, 12)}`)
      .join(', ')}`,
  );
  if (record.guards) {
    // What stood behind this verdict (docs/verification.md#what-stood-behind-a-verdict), and what did not.
    const { stood, missing } = describeGuards(record.guards);
    out(`guards stood: ${stood}`);
    for (const line of missing) out(`  not standing: ${line}`);
  }
  if (record.candidates) {
    out();
    out(
      `best of ${record.candidates.length} (${record.bestOf?.parallel ?? '?'} at a time${record.bestOf?.stopAtFirst ? ', --stop-at-first' : ''}):`,
    );
    for (const line of candidateTable(record.candidates, record.winner?.name ?? null)) out(line);
    out(record.winner ? `winner: ${record.winner.name} — ${record.winner.reason}` : 'no winner: no candidate was VERIFIED');
    for (const c of shown.candidates ?? []) {
      out();
      out(`── candidate ${c.name} ──`);
      if (c.record) renderRun({ root: shown.root, dir: c.dir, record: c.record, attempts: c.attempts }, io);
      else out('  (never started, or its run.json is missing)');
    }
  }
  record.attempts.forEach((summary, i) => {
    const detail = shown.attempts[i];
    out();
    out(`attempt ${summary.number} (${summary.kind}) → ${summary.status}: ${summary.summary}`);
    const agentLine = describeAgentEnd(detail?.agent);
    if (agentLine) out(`  agent: ${agentLine}`);
    const criteria = detail?.criteria ?? summary.criteria;
    const width = Math.max(2, ...criteria.map((c) => c.id.length));
    for (const c of criteria) {
      const steps = c.steps.length > 0 ? `step ${c.steps.join(',')}` : 'no step';
      out(`  ${c.status.padEnd(10)} ${c.id.padEnd(width)}  ${steps.padEnd(9)} ${c.description ?? ''}${c.note ? ` — ${c.note}` : ''}`);
    }
    for (const finding of detail?.findings ?? []) {
      for (const line of describeFinding(finding)) out(`    ${line}`);
    }
    const app = appFailureOf(detail);
    if (app) for (const line of describeAppFailure(app)) out(`  ${line}`);
    if (detail === null) out('  (attempt.json missing: the attempt did not finish writing its evidence)');
  });
  out();
  out(`evidence: ${path.relative(shown.root, shown.dir) || shown.dir}`);
}
