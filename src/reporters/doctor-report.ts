// Human rendering of `elenchos doctor`: one line per check, the fix on the same line, log tails below.
import { writeLine } from '../cli-io.js';
import type { DoctorCheck } from '../core/doctor/doctor-check.js';
import type { DoctorReport } from '../core/doctor/doctor.js';

const MARK = { ok: '✓', warn: '!', fail: '✗' } as const;

// Names are padded to this width (the longest, "signing key") so that lines printed one by one, as each check ends, still line up.
export const DOCTOR_NAME_WIDTH = 11;

/** One check's line (and its details), printed as soon as the check ends. */
export function renderDoctorCheck(check: DoctorCheck, out: NodeJS.WritableStream): void {
  const fix = check.fix ? `; fix: ${check.fix}` : '';
  writeLine(out, `${MARK[check.status]} ${check.name.padEnd(DOCTOR_NAME_WIDTH)}  ${check.message}${fix}`);
  for (const line of check.details) writeLine(out, `    ${line}`);
}

/** A step that takes a while, said before it starts (`… app  starting …`). */
export function renderDoctorProgress(name: string, message: string, out: NodeJS.WritableStream): void {
  writeLine(out, `… ${name.padEnd(DOCTOR_NAME_WIDTH)}  ${message}`);
}

/** The last line: all well, or how many checks failed. */
export function renderDoctorEnd(report: DoctorReport, out: NodeJS.WritableStream): void {
  const failed = report.checks.filter((c) => c.status === 'fail').length;
  writeLine(out, failed === 0 ? 'all well' : `${failed} problem(s)`);
}
