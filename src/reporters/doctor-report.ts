// Human rendering of `elenchos doctor`: one line per check, the fix on the same line, log tails below.
import { writeLine } from '../cli-io.js';
import type { DoctorReport } from '../core/doctor/doctor.js';

const MARK = { ok: '✓', warn: '!', fail: '✗' } as const;

/** Prints every check; the last line says whether all is well. */
export function renderDoctor(report: DoctorReport, out: NodeJS.WritableStream): void {
  const width = Math.max(...report.checks.map((c) => c.name.length));
  for (const check of report.checks) {
    const fix = check.fix ? `; fix: ${check.fix}` : '';
    writeLine(out, `${MARK[check.status]} ${check.name.padEnd(width)}  ${check.message}${fix}`);
    for (const line of check.details) writeLine(out, `    ${line}`);
  }
  const failed = report.checks.filter((c) => c.status === 'fail').length;
  writeLine(out, failed === 0 ? 'all well' : `${failed} problem(s)`);
}
