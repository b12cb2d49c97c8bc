// One self-contained HTML file for a run: no scripts, no external resources, every value escaped.
import type { ReportInput } from '../core/stored-runs/report.js';
import { agentReportsDollars, describeAgentEnd } from './agent-end.js';
import { appFailureOf, describeAppFailure } from './app-failure.js';
import { escapeHtml } from './html-escape.js';
import { describeAgentSpend, describeDollars, showsKaneCredits } from './run-list.js';
import { renderFindings } from './html-findings.js';
import { EVIDENCE_FILES } from '../evidence/layout.js';
import { GUARD_NAMES, NEEDS_HUMAN, type AttemptStatus, type CandidateState, type CriterionStatus, type RunState } from '../states.js';
import type { RunGuards } from '../evidence/guards-record.js';

/** Every state a badge shows: a run's, a candidate's, an attempt's, a criterion's, a task's. */
type Badge = RunState | CandidateState | AttemptStatus | CriterionStatus | typeof NEEDS_HUMAN;

export type { ReportInput };

const STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:70rem;color:#1b1f24;padding:0 1rem}
h1{font-size:1.4rem}h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #d0d7de}code,pre{font:12px/1.4 ui-monospace,monospace}
pre{background:#f6f8fa;padding:.6rem;overflow:auto;max-height:24rem;white-space:pre-wrap}table{border-collapse:collapse;margin:.5rem 0}
img{max-width:100%;border:1px solid #d0d7de}td pre{max-height:16rem;margin:0}
td,th{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left;vertical-align:top}.s{font-weight:600;border-radius:4px;padding:0 .35rem}
.PASS,.VERIFIED{background:#dafbe1;color:#116329}.FAIL,.FAILED{background:#ffebe9;color:#a40e26}
.NEEDS_HUMAN{background:#ffebe9;color:#a40e26}.STOPPED,.PENDING{background:#eaeef2;color:#57606a}
.ERROR,.VERIFIER_ERROR,.INCONCLUSIVE,.UNVERIFIED,.NOT_VERIFIED,.RUNNING{background:#fff8c5;color:#7d4e00}`;

/** Renders the report. */
export function renderHtmlReport(input: ReportInput): string {
  const { record } = input;
  const badge = (status: Badge) => `<span class="s ${escapeHtml(status)}">${escapeHtml(status)}</span>`;
  const parts: string[] = [];
  parts.push(`<h1>${escapeHtml(record.task.title)} <small>(${escapeHtml(record.task.id)})</small></h1>`);
  if (input.needsHuman) {
    parts.push(
      `<p>${badge(NEEDS_HUMAN)} ${escapeHtml(`no agent runs this task until a person acknowledges it (elenchos ack ${record.task.file}):`)}</p><ul>`,
    );
    for (const reason of input.needsHuman.reasons) parts.push(`<li>${escapeHtml(reason)}</li>`);
    parts.push('</ul>');
  }
  parts.push(
    `<p>${badge(record.state)} ${record.reason ? `<code>${escapeHtml(record.reason)}</code>` : ''} ${escapeHtml(record.message ?? '')}</p>`,
  );
  parts.push('<table>');
  for (const [k, v] of [
    ['run', record.runId],
    ['mode', record.mode],
    ['task file', record.task.file],
    ['started', record.startedAt],
    ['duration', record.durationMs === null ? 'did not finish' : `${(record.durationMs / 1000).toFixed(1)} s`],
    ['base commit', record.workspace.base],
    [
      'spent',
      record.cost
        ? `${describeAgentSpend({ mode: record.mode, cost: record.cost }, agentReportsDollars(input.attempts))}${showsKaneCredits(record) ? `, Kane ${record.cost.kaneCredits} credits` : ''}`
        : 'not recorded',
    ],
    [
      'tools',
      Object.entries(record.tools)
        .map(([t, ver]) => `${t} ${ver ?? '?'}`)
        .join(', '),
    ],
    [
      'evidence integrity',
      input.manifest === null
        ? 'no manifest'
        : input.manifest.ok
          ? 'manifest verified'
          : `MANIFEST MISMATCH: ${input.manifest.problems.join('; ')}`,
    ],
  ])
    parts.push(`<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`);
  parts.push('</table><h2>Contract lock</h2><table><tr><th>file</th><th>role</th><th>sha256</th></tr>');
  for (const file of record.contract.files)
    parts.push(
      `<tr><td>${escapeHtml(file.path)}</td><td>${escapeHtml(file.role)}</td><td><code>${escapeHtml(file.sha256)}</code></td></tr>`,
    );
  parts.push('</table>');
  if (record.guards) parts.push(...renderGuards(record.guards));
  if (input.candidates && record.candidates) parts.push(...renderCandidates(input, badge));
  parts.push(...renderAttempts(input, badge));
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">\n<title>Elenchos · ${escapeHtml(record.task.id)} · ${escapeHtml(record.state)}</title><style>${STYLE}</style></head>\n<body>\n${parts.join('\n')}\n</body></html>\n`;
}

/**
 * A best-of run: the candidates side by side (state, attempts, per-criterion status of the last attempt,
 * change size, cost, time), the winner and why, then each candidate's attempts with their diffs.
 */
function renderCandidates(input: ReportInput, badge: (status: Badge) => string): string[] {
  const { record } = input;
  const entries = record.candidates ?? [];
  const parts: string[] = [];
  const winner = record.winner?.name ?? null;
  parts.push(
    `<h2>Candidates</h2><p>${winner ? `winner <b>${escapeHtml(winner)}</b>: ${escapeHtml(record.winner!.reason)}` : 'no winner: no candidate was VERIFIED'}</p>`,
  );
  parts.push(
    `<p>${escapeHtml('The rule: only VERIFIED candidates win; then fewest attempts, smallest change (lines added + removed, binary files by size), lowest cost (not compared where a cost was not reported), earliest to finish.')}</p>`,
  );
  const head = entries.map(
    (c) => `<th>${escapeHtml(c.name)}${c.name === winner ? ' ★' : ''}<br><small>${escapeHtml(`${c.agent} (${c.agentType})`)}</small></th>`,
  );
  parts.push(`<table><tr><th></th>${head.join('')}</tr>`);
  const row = (label: string, cells: string[]) =>
    parts.push(`<tr><th>${escapeHtml(label)}</th>${cells.map((c) => `<td>${c}</td>`).join('')}</tr>`);
  row(
    'state',
    entries.map((c) => `${badge(c.state)} ${c.reason ? `<code>${escapeHtml(c.reason)}</code>` : ''}`),
  );
  row(
    'attempts',
    entries.map((c) => escapeHtml(`${c.attempts} (${c.verifications} verification(s))`)),
  );
  const ids = [...new Set(entries.flatMap((c) => c.criteria.map((k) => k.id)))];
  for (const id of ids)
    row(
      id,
      entries.map((c) => {
        const status = c.criteria.find((k) => k.id === id)?.status;
        return status ? badge(status) : '–';
      }),
    );
  row(
    'change',
    entries.map((c) =>
      escapeHtml(
        c.change
          ? `${c.change.size}: +${c.change.added} −${c.change.removed}${c.change.binaryBytes ? `, ${c.change.binaryBytes} binary bytes` : ''}, ${c.change.files} file(s)`
          : 'none stored',
      ),
    ),
  );
  row(
    'cost',
    entries.map((c) => escapeHtml(c.cost ? `${describeDollars(c.cost.agentUsd)}, ${c.cost.kaneCredits} Kane credit(s)` : '–')),
  );
  row(
    'time',
    entries.map((c) => escapeHtml(c.durationMs === null ? '–' : `${(c.durationMs / 1000).toFixed(1)} s`)),
  );
  row(
    'message',
    entries.map((c) => escapeHtml(c.message ?? '')),
  );
  parts.push('</table>');
  for (const c of input.candidates ?? []) {
    const entry = entries.find((e) => e.name === c.name);
    parts.push(`<h2>Candidate ${escapeHtml(c.name)} ${badge(entry?.state ?? c.record.state)}</h2>`);
    const diff = entry?.change
      ? c.texts.get(entry.change.attempt)?.find((t) => t.name === `${EVIDENCE_FILES.workspace}/${EVIDENCE_FILES.diff}`)
      : undefined;
    if (diff)
      parts.push(
        `<details open><summary>its change (attempt ${entry!.change!.attempt}, the one apply takes)</summary><pre>${escapeHtml(diff.text)}</pre></details>`,
      );
    parts.push(...renderAttempts(c, badge).map((html) => html.replace(/^<h2>/, '<h3>').replace(/<\/h2>/, '</h3>')));
  }
  return parts;
}

function renderAttempts(input: Omit<ReportInput, 'manifest'>, badge: (status: Badge) => string): string[] {
  const parts: string[] = [];
  input.record.attempts.forEach((summary, i) => {
    const detail = input.attempts[i];
    parts.push(
      `<h2>Attempt ${summary.number} (${escapeHtml(summary.kind)}) ${badge(summary.status)}</h2><p>${escapeHtml(summary.summary)}</p>`,
    );
    const agentEnd = describeAgentEnd(detail?.agent);
    if (agentEnd) parts.push(`<p>agent: ${escapeHtml(agentEnd)}</p>`);
    const criteria = detail?.criteria ?? summary.criteria;
    parts.push('<table><tr><th>criterion</th><th>status</th><th>steps</th><th>description</th><th>note</th></tr>');
    for (const c of criteria) {
      parts.push(
        `<tr><td>${escapeHtml(c.id)}</td><td>${badge(c.status)}</td><td>${escapeHtml(c.steps.join(', '))}</td><td>${escapeHtml(c.description ?? '')}</td><td>${escapeHtml(c.note ?? '')}</td></tr>`,
      );
    }
    parts.push('</table>');
    const findings = detail?.findings ?? [];
    parts.push(...renderFindings(findings, input.evidence?.get(summary.number)));
    const app = appFailureOf(detail);
    // Shown open, not folded away: when the app did not start, its log is the evidence that matters.
    if (app) parts.push(`<h3>The app did not come up</h3><pre>${escapeHtml(describeAppFailure(app).join('\n'))}</pre>`);
    for (const { name, text } of input.texts.get(summary.number) ?? []) {
      parts.push(`<details><summary>${escapeHtml(name)}</summary><pre>${escapeHtml(text)}</pre></details>`);
    }
  });
  return parts;
}

/** What stood behind the verdict: each guard, whether it stood, how it looked and why (docs/verification.md#what-stood-behind-a-verdict). */
function renderGuards(guards: RunGuards): string[] {
  const parts = ['<h2>Guards behind the verdict</h2><table><tr><th>guard</th><th>stood</th><th>how</th><th>why</th></tr>'];
  for (const name of GUARD_NAMES) {
    const guard = guards.detail[name];
    const note = guards.required.includes(name) ? ' (required)' : guards.allowed.includes(name) ? ' (allowed)' : '';
    const stood = guard?.stood ? 'yes' : guard ? 'no' : 'not reached';
    parts.push(
      `<tr><td>${escapeHtml(name + note)}</td><td>${escapeHtml(stood)}</td><td>${escapeHtml(guard?.how ?? '')}</td><td>${escapeHtml(guard?.why ?? '')}</td></tr>`,
    );
  }
  parts.push('</table>');
  return parts;
}
