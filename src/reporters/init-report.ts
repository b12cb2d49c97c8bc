// Human rendering of `elenchos init`: what was detected, what each file got, and what is left to do.
import { writeLine } from '../cli-io.js';
import type { InitPlan } from '../core/init/init-project.js';

const PLANNED = { create: 'create', append: 'append', skip: 'skip' } as const;
const DONE = { create: 'wrote', append: 'added to', skip: 'skipped' } as const;

/** Prints the plan (`done: false`, before asking) or the result (`done: true`). */
export function renderInit(plan: InitPlan, out: NodeJS.WritableStream, done: boolean): void {
  const { choices } = plan;
  writeLine(out, `elenchos init in ${plan.root}`);
  writeLine(out, `  verifier  ${choices.verifier} (${choices.verifierWhy})`);
  writeLine(out, `  agent     ${choices.agent} (${choices.agentWhy})`);
  writeLine(out, `  app       ${choices.appCommand ?? 'not found: set app.command'}`);
  if (choices.appUrlWhy) writeLine(out, `  url       ${choices.appUrl} (${choices.appUrlWhy})`);
  const managerWhy = plan.detected.packageManagerWhy;
  if (choices.setupCommand) writeLine(out, `  setup     ${choices.setupCommand}${managerWhy ? ` (${managerWhy})` : ''}`);
  writeLine(out, `  sandbox   ${choices.sandbox.mode} (${choices.sandbox.why})`);
  const verbs = done ? DONE : PLANNED;
  const width = Math.max(...plan.files.map((f) => f.path.length));
  for (const file of plan.files) writeLine(out, `  ${verbs[file.action].padEnd(8)}  ${file.path.padEnd(width)}  ${file.why}`);
  if (!done) return;
  writeLine(out, 'Next:');
  for (const step of plan.next) writeLine(out, `  - ${step}`);
}
