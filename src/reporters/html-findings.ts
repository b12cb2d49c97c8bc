// The findings of one attempt in the HTML report: a table, then each failing test's evidence (its whole
// error with line breaks kept, screenshots inline, the trace and how to open it). Every value escaped.
import type { FindingKind } from '../states.js';
import type { Finding } from '../verifiers/types.js';
import type { AttemptEvidence } from '../core/stored-runs/report-evidence.js';
import { escapeHtml } from './html-escape.js';

type ShownFinding = Finding & { location?: string | null; detail?: string | null };

/** The findings table and, per finding with evidence, a section with it. */
export function renderFindings(findings: readonly ShownFinding[], evidence: AttemptEvidence | undefined): string[] {
  const parts: string[] = [];
  if (findings.length > 0) {
    parts.push('<table><tr><th>step</th><th>reason</th><th>codes</th><th>verdict</th></tr>');
    for (const f of findings) {
      const where = f.location ? `<br><code>${escapeHtml(f.location)}</code>` : '';
      // The whole message (Expected/Received, call log) with its line breaks, when kept beside the one-line reason.
      const detail = f.detail && f.detail !== f.reason ? `\n\n${f.detail}` : '';
      parts.push(
        `<tr><td>${escapeHtml(f.step ?? '')} ${escapeHtml(f.heading ?? '')}${where}</td><td><pre>${escapeHtml(`${f.reason ?? ''}${detail}`)}</pre></td><td>${escapeHtml([f.reasonCode, f.resultCode].filter((x) => x !== null).join(' '))}</td><td>${escapeHtml(verdictOf(f))}</td></tr>`,
      );
    }
    parts.push('</table>');
  }
  findings.forEach((f, i) => {
    const e = evidence?.findings[i];
    if (!e) return;
    parts.push(`<h3>Test ${escapeHtml(f.step ?? '?')} · ${escapeHtml(f.heading ?? '')}</h3>`);
    for (const uri of e.screenshots) parts.push(`<p><img alt="screenshot at the failure" src="${escapeHtml(uri)}"></p>`);
    if (e.trace) {
      parts.push(
        `<p>Trace: <a href="${escapeHtml(e.trace.href)}">trace.zip</a> — open it with <code>${escapeHtml(e.trace.command)}</code></p>`,
      );
    }
    if (e.pageSnapshot)
      parts.push(`<details><summary>page snapshot at the failure</summary><pre>${escapeHtml(e.pageSnapshot)}</pre></details>`);
  });
  if (evidence?.playwrightReport)
    parts.push(`<p><a href="${escapeHtml(evidence.playwrightReport)}">Playwright's HTML report of this attempt</a></p>`);
  return parts;
}

/** Kane's triage when it gave one; otherwise how Elenchos classified the finding. */
function verdictOf(f: ShownFinding): string {
  const v = f.verdict;
  if (v)
    return `${v.family ?? ''}/${v.category ?? ''}, confirmed ${v.confirmed}, severity ${v.severity ?? '?'}, confidence ${v.confidence ?? '?'} — ${v.bugTitle ?? ''}: ${v.oneLiner ?? ''}`;
  return KIND[f.kind] ?? f.kind;
}

const KIND: Record<FindingKind, string> = {
  product_failure: 'product failure (the app misbehaved)',
  verifier_error: 'verifier error (could not judge)',
  unattributed_failure: 'failed without a product verdict',
  inconsistency: 'report and test file disagree',
};
