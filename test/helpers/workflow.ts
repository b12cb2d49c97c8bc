// Reading the GitHub Actions workflow `elenchos init --ci github` writes.

/** Where init writes it. */
export const WORKFLOW = '.github/workflows/elenchos.yml';

/** One step of a job, as the tests read it. */
export interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  id?: string;
  env?: Record<string, string>;
  with?: Record<string, unknown>;
}

/** Every `run:` command of a job, in order. */
export const runs = (workflow: any, job: string): string[] =>
  (workflow.jobs[job].steps as Step[]).filter((s) => s.run).map((s) => s.run!.trim());
