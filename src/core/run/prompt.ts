// The prompts an agent receives: the task, and on a repair the previous attempt's evidence.
import type { CriterionResult } from '../../contract/criteria-map.js';
import type { Task } from '../../contract/task-schema.js';
import type { Finding } from '../../verifiers/types.js';
import type { AttemptOutcome } from '../../states.js';

export interface PromptContext {
  task: Task;
  taskFile: string;
  /** Every file the contract lock covers (repo-relative). */
  lockedFiles: string[];
  appCommand: string | undefined;
  attempt: number;
  maxAttempts: number;
}

/** What the previous attempt found, for a repair prompt. */
export interface RepairEvidence {
  attempt: number;
  status: AttemptOutcome;
  summary: string;
  criteria: CriterionResult[];
  findings: Finding[];
  /** Set when the app itself did not come up. */
  appFailure: string | null;
}

/** The prompt of attempt 1, or of a repair when `previous` is given. */
export function buildPrompt(context: PromptContext, previous: RepairEvidence | null): string {
  const { task } = context;
  const lines = [
    `Task ${task.id}: ${task.title}`,
    '',
    task.description,
    '',
    'Acceptance criteria (an independent browser verifier checks each one; your word does not count):',
    ...task.acceptanceCriteria.map((c) => `- ${c.id}: ${c.description}`),
    '',
    'Rules:',
    '- Work only in this directory (a git worktree of the repository). Make the product meet every criterion.',
    `- Do not modify the contract or the verifier's inputs (${context.lockedFiles.join(', ')}): any change ends the run as CONTRACT_CHANGED.`,
    '- Leave no process running when you exit.',
    context.appCommand ? `- The app is started with \`${context.appCommand}\` after you exit, then verified in a browser.` : '',
  ].filter((l) => l !== '');
  if (previous) lines.push('', ...repairSection(context, previous));
  return `${lines.join('\n')}\n`;
}

function repairSection(context: PromptContext, previous: RepairEvidence): string[] {
  const out = [
    `This is attempt ${context.attempt} of at most ${context.maxAttempts}: a repair. Attempt ${previous.attempt} was verified and did not pass (${previous.status}): ${previous.summary}`,
  ];
  if (previous.appFailure) out.push('', `The app did not start: ${previous.appFailure}`);
  const findingsOf = (criterion: CriterionResult) => previous.findings.filter((f) => f.step !== null && criterion.steps.includes(f.step));
  const failed = previous.criteria.filter((c) => c.status === 'FAIL');
  if (failed.length > 0) out.push('', 'Confirmed failures (the verifier saw the product do the wrong thing):');
  for (const criterion of failed) {
    out.push(`- FAIL ${criterion.id}: ${criterion.description}${criterion.note ? ` (${criterion.note})` : ''}`);
    // Only the product failures: another test of the same criterion may have had verifier trouble.
    for (const finding of findingsOf(criterion).filter((f) => f.kind === 'product_failure'))
      out.push(...describeFinding(finding).map(indent(4)));
  }
  const unjudged = previous.criteria.filter((c) => c.status !== 'PASS' && c.status !== 'FAIL');
  if (unjudged.length > 0) {
    out.push(
      '',
      failed.length > 0
        ? 'Could not be judged this time (the verifier had trouble; make sure they work too):'
        : 'Criteria that did not pass:',
    );
  }
  for (const criterion of unjudged) {
    out.push(`- ${criterion.status} ${criterion.id}: ${criterion.description}${criterion.note ? ` (${criterion.note})` : ''}`);
    for (const finding of findingsOf(criterion)) out.push(...describeFinding(finding).map(indent(4)));
  }
  const unattached = previous.findings.filter((f) => f.step === null || !previous.criteria.some((c) => c.steps.includes(f.step!)));
  for (const finding of unattached) out.push(...describeFinding(finding).map(indent(2)));
  const passed = previous.criteria.filter((c) => c.status === 'PASS').map((c) => c.id);
  if (passed.length > 0) out.push('', `Criteria that passed (keep them passing): ${passed.join(', ')}.`);
  out.push('', 'Fix the product, not the tests.');
  return out;
}

// Blank lines of a quoted block stay empty (no trailing spaces).
const indent = (n: number) => (line: string) => (line === '' ? '' : `${' '.repeat(n)}${line}`);

/** A finding as the verifier reported it, verdict family, category and confidence beside it. */
export function describeFinding(finding: Finding): string[] {
  const where = finding.step !== null ? `step ${finding.step}${finding.heading ? ` "${finding.heading}"` : ''}` : 'verifier';
  const codes = [finding.reasonCode, finding.resultCode !== null ? `result ${finding.resultCode}` : null].filter(Boolean).join(', ');
  const lines = [`${where}: ${finding.reason ?? 'failed'}${codes ? ` [${codes}]` : ''}`];
  const v = finding.verdict;
  if (v) {
    const attribution = [v.family, v.category].filter(Boolean).join('/');
    const facts = [
      attribution || null,
      v.confirmed === null ? null : v.confirmed ? 'confirmed' : 'not confirmed',
      v.severity ? `severity ${v.severity}` : null,
      v.confidence !== null ? `confidence ${v.confidence}` : null,
    ].filter(Boolean);
    lines.push(`verdict: ${facts.join(', ')}${v.bugTitle ? ` — "${v.bugTitle}"` : ''}${v.oneLiner ? `: ${v.oneLiner}` : ''}`);
  }
  if (finding.location) lines.push(`at ${finding.location}`);
  if (finding.detail) lines.push(...fence(finding.detail));
  return lines;
}

/** `text` as a fenced block whose fence no line of it can close (an assertion's diff stays one quoted block). */
export function fence(text: string): string[] {
  const longest = Math.max(0, ...[...text.matchAll(/`{3,}/g)].map((m) => m[0].length));
  const marks = '`'.repeat(Math.max(3, longest + 1));
  return [marks, ...text.split('\n').map((l) => l.trimEnd()), marks];
}
