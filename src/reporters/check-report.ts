// Human rendering of an `elenchos check` report.
import { writeLine, type CliIO } from '../cli-io.js';
import type { CheckReport } from '../core/check.js';

/** Prints each task's mapping and every problem; problems go to stderr. */
export function renderCheckReport(report: CheckReport, io: CliIO): void {
  const out = io.stdout;
  if (!report.config.ok) {
    writeLine(out, `✗ config ${report.config.file}`);
    for (const p of report.config.problems) writeLine(out, `  ${p}`);
  }
  for (const task of report.tasks) {
    if (task.id === null) {
      writeLine(out, `✗ ${task.file}`);
      for (const p of task.problems) writeLine(out, `  ${p}`);
      continue;
    }
    writeLine(out, `${task.ok ? '✓' : '✗'} ${task.file}  ${task.id}: ${task.title}`);
    writeLine(out, `  verifier ${task.verifier}, test ${task.testFile}, ${task.steps.length} step(s)`);
    const width = Math.max(...task.criteria.map((c) => c.id.length), 2);
    for (const c of task.criteria) {
      const steps = c.steps.length > 0 ? `step ${c.steps.join(', ')}` : 'NO STEP';
      writeLine(out, `  ${c.id.padEnd(width)}  ${steps.padEnd(12)}  ${c.description}`);
    }
    for (const p of task.problems) writeLine(out, `  ✗ ${p}`);
    for (const n of task.notes) writeLine(out, `  note (${task.lock}): ${n}`);
    for (const w of task.warnings) writeLine(out, `  ! warning: ${w}`);
  }
  const bad = report.tasks.filter((t) => !t.ok).length + (report.config.ok ? 0 : 1);
  writeLine(out, bad === 0 ? `all ${report.tasks.length} task(s) OK` : `${bad} input(s) with problems`);
}
