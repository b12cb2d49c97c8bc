// JUnit XML for `elenchos verify --junit`: one testsuite per task, one testcase per criterion.
import type { VerifiedTask } from '../core/verify-all.js';

/** Escapes text for XML attributes and content. */
export function escapeXml(value: unknown): string {
  return String(value ?? '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;')
    // eslint-disable-next-line no-control-regex -- XML 1.0 forbids these characters outright
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');
}

/** PASS is a pass; FAIL a <failure>; UNVERIFIED (or a refused task) an <error>; a run not VERIFIED adds a failing `verdict` case. */
export function renderJunit(tasks: readonly VerifiedTask[]): string {
  const suites = tasks.map((task) => {
    const name = task.record?.task.id ?? task.file;
    const seconds = ((task.record?.durationMs ?? 0) / 1000).toFixed(3);
    if (task.record === null) {
      const cases = `    <testcase classname="${escapeXml(name)}" name="contract" time="0"><error message="${escapeXml(firstLine(task.refused))}">${escapeXml(task.refused)}</error></testcase>`;
      return `  <testsuite name="${escapeXml(name)}" tests="1" failures="0" errors="1" time="0" file="${escapeXml(task.file)}">\n${cases}\n  </testsuite>`;
    }
    const why = `${task.record.state}${task.record.reason ? ` ${task.record.reason}` : ''}${task.record.message ? `: ${task.record.message}` : ''}`;
    const cases = task.criteria.map((c) => {
      // The time its tests took (Playwright measures each); 0 when the verifier reports no durations.
      const time = typeof c.durationMs === 'number' ? (c.durationMs / 1000).toFixed(3) : '0';
      const open = `    <testcase classname="${escapeXml(name)}" name="${escapeXml(`${c.id}: ${c.description}`)}" time="${time}">`;
      if (c.status === 'PASS') return `${open}</testcase>`;
      // The failing tests' whole messages (Expected/Received, call log) first: what a CI reader opens the case for.
      const body = escapeXml([...(c.failures ?? []), c.note, why, `evidence: ${task.runDir}`].filter(Boolean).join('\n'));
      const tag = c.status === 'FAIL' ? 'failure' : 'error';
      return `${open}<${tag} message="${escapeXml(`${c.status}${c.note ? `: ${c.note}` : ''}`)}">${body}</${tag}></testcase>`;
    });
    // The verdict is the run's, not the criteria's: a run ended by tampering or instability after the
    // verifier passed every criterion must not read green.
    if (task.record.state !== 'VERIFIED') {
      const tag = task.record.state === 'FAILED' ? 'failure' : 'error';
      cases.push(`    <testcase classname="${escapeXml(name)}" name="verdict" time="0"><${tag} message="${escapeXml(why)}">${escapeXml(`${why}\nevidence: ${task.runDir}`)}</${tag}></testcase>`);
    }
    const count = (tag: string) => cases.filter((c) => c.includes(`<${tag} `)).length;
    return `  <testsuite name="${escapeXml(name)}" tests="${cases.length}" failures="${count('failure')}" errors="${count('error')}" time="${seconds}" file="${escapeXml(task.file)}">\n${cases.join('\n')}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="elenchos verify">\n${suites.join('\n')}\n</testsuites>\n`;
}

function firstLine(text: string | null): string {
  return (text ?? '').split('\n')[0] ?? '';
}
