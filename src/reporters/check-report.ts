// Human rendering of an `elenchos check` report.
import { writeHuman, type CliIO } from '../cli-io.js';
import type { CheckReport } from '../core/check.js';

/** Prints each task's mapping and every problem; problems go to stderr. */
export function renderCheckReport(report: CheckReport, io: CliIO): void {
  const out = io.stdout;
  if (!report.config.ok) {
    writeHuman(out, `✗ config ${report.config.file}`);
    for (const p of report.config.problems) writeHuman(out, `  ${p}`);
  }
  for (const task of report.tasks) {
    if (task.id === null) {
      writeHuman(out, `✗ ${task.file}`);
      for (const p of task.problems) writeHuman(out, `  ${p}`);
      continue;
    }
    writeHuman(out, `${task.ok ? '✓' : '✗'} ${task.file}  ${task.id}: ${task.title}`);
    writeHuman(out, `  verifier ${task.verifier}, test ${task.testFile}, ${task.steps.length} step(s)`);
    const width = Math.max(...task.criteria.map((c) => c.id.length), 2);
    for (const c of task.criteria) {
      const steps = c.steps.length > 0 ? `step ${c.steps.join(', ')}` : 'NO STEP';
      writeHuman(out, `  ${c.id.padEnd(width)}  ${steps.padEnd(12)}  ${c.description}`);
    }
    for (const p of task.problems) writeHuman(out, `  ✗ ${p}`);
    for (const n of task.notes) writeHuman(out, `  note (${task.lock}): ${n}`);
    for (const w of task.warnings) writeHuman(out, `  ! warning: ${w}`);
  }
  const bad = report.tasks.filter((t) => !t.ok).length + (report.config.ok ? 0 : 1);
  writeHuman(out, bad === 0 ? `all ${report.tasks.length} task(s) OK` : `${bad} input(s) with problems`);
}
