// JUnit XML for `elenchos verify --junit`: one testsuite per task, one testcase per criterion.
import type { VerifiedTask } from '../core/verify/verify-summary.js';
import { relativeRunDir } from '../evidence/layout.js';
import type { RunGuards } from '../evidence/guards-record.js';
import { GUARD_NAMES } from '../states.js';

/** Escapes text for XML attributes and content. */
export function escapeXml(value: unknown): string {
  return (
    String(value ?? '')
      .replaceAll('&', '&amp;')
      .replaceAll('<', '&lt;')
      .replaceAll('>', '&gt;')
      .replaceAll('"', '&quot;')
      .replaceAll("'", '&apos;')
      // eslint-disable-next-line no-control-regex -- XML 1.0 forbids these characters outright
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '')
  );
}

type CaseOutcome = 'passed' | 'failure' | 'error';
interface JunitCase {
  name: string;
  outcome: CaseOutcome;
  message: string;
  body: string;
  /** Seconds its tests took ("0" when the verifier measures none, as Kane). */
  time: string;
}

/** PASS is a pass; FAIL a <failure>; UNVERIFIED (or a refused task) an <error>; a run not VERIFIED adds a failing `verdict` case. */
export function renderJunit(tasks: readonly VerifiedTask[]): string {
  const suites = tasks.map((task) => {
    const name = task.record?.task.id ?? task.file;
    const seconds = task.record === null ? '0' : ((task.record.durationMs ?? 0) / 1000).toFixed(3);
    return renderSuite(name, task.file, seconds, junitCases(task), guardProperties(task.record?.guards));
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="elenchos verify">\n${suites.join('\n')}\n</testsuites>\n`;
}

/** One task's cases as data: the counts of the suite are taken from these, never from rendered XML. */
function junitCases(task: VerifiedTask): JunitCase[] {
  if (task.record === null)
    return [{ name: 'contract', outcome: 'error', message: firstLine(task.refused), body: task.refused ?? '', time: '0' }];
  const record = task.record;
  // Relative to the repository root: the same in `verify` and in `merge` of shards run on other machines.
  const evidence = `evidence: ${relativeRunDir(record.runId)}`;
  const why = `${record.state}${record.reason ? ` ${record.reason}` : ''}${record.message ? `: ${record.message}` : ''}`;
  const cases: JunitCase[] = task.criteria.map((c) => ({
    name: `${c.id}: ${c.description}`,
    outcome: c.status === 'PASS' ? 'passed' : c.status === 'FAIL' ? 'failure' : 'error',
    message: `${c.status}${c.note ? `: ${c.note}` : ''}`,
    // The failing tests' whole messages (Expected/Received, call log) first: what a CI reader opens the case for.
    body: [...(c.failures ?? []), c.note, why, evidence].filter(Boolean).join('\n'),
    // The time its tests took (Playwright measures each); 0 when the verifier reports no durations.
    time: typeof c.durationMs === 'number' ? (c.durationMs / 1000).toFixed(3) : '0',
  }));
  // The verdict is the run's, not the criteria's: a run ended by tampering or instability after the
  // verifier passed every criterion must not read green.
  if (record.state !== 'VERIFIED')
    cases.push({
      name: 'verdict',
      outcome: record.state === 'FAILED' ? 'failure' : 'error',
      message: why,
      body: `${why}\n${evidence}`,
      time: '0',
    });
  return cases;
}

/**
 * What stood behind the task's verdict, as suite properties a CI can read (docs/verification.md#what-stood-behind-a-verdict):
 * `elenchos.guards.stood`, `.missing`, `.required`, and `elenchos.guard.<name>` = `stood|not standing: how; why`.
 */
function guardProperties(guards: RunGuards | undefined): [string, string][] {
  if (!guards) return [];
  const properties: [string, string][] = [
    ['elenchos.guards.stood', guards.stood.join(',')],
    ['elenchos.guards.missing', guards.missing.join(',')],
    ['elenchos.guards.required', guards.required.join(',')],
  ];
  for (const name of GUARD_NAMES) {
    const guard = guards.detail[name];
    const state = guard ? `${guard.stood ? 'stood' : 'not standing'}: ${guard.how}${guard.why ? `; ${guard.why}` : ''}` : 'not reached';
    properties.push([`elenchos.guard.${name}`, state]);
  }
  return properties;
}

function renderSuite(
  name: string,
  file: string,
  seconds: string,
  cases: readonly JunitCase[],
  properties: [string, string][] = [],
): string {
  const count = (outcome: CaseOutcome) => cases.filter((c) => c.outcome === outcome).length;
  const xml = cases.map((c) => {
    const open = `    <testcase classname="${escapeXml(name)}" name="${escapeXml(c.name)}" time="${c.time}">`;
    if (c.outcome === 'passed') return `${open}</testcase>`;
    return `${open}<${c.outcome} message="${escapeXml(c.message)}">${escapeXml(c.body)}</${c.outcome}></testcase>`;
  });
  const props =
    properties.length === 0
      ? ''
      : `    <properties>\n${properties.map(([k, v]) => `      <property name="${escapeXml(k)}" value="${escapeXml(v)}"/>`).join('\n')}\n    </properties>\n`;
  return `  <testsuite name="${escapeXml(name)}" tests="${cases.length}" failures="${count('failure')}" errors="${count('error')}" time="${seconds}" file="${escapeXml(file)}">\n${props}${xml.join('\n')}\n  </testsuite>`;
}

function firstLine(text: string | null): string {
  return (text ?? '').split('\n')[0] ?? '';
}
