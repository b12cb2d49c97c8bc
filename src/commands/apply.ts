// `elenchos apply <run-id>`: take a VERIFIED run's exact change into the checkout, or onto a branch.
import type { Command } from 'commander';
import { writeHuman, writeLine, type CliIO } from '../cli-io.js';
import type { ApplyRunResult, ApplyWhenVerified } from '../core/stored-runs/apply-run.js';
import type { RunRecord } from '../evidence/run-record.js';
import { ExitCode } from '../errors.js';
import { signingKeyFor } from '../util/signing-key.js';

export interface ApplyCommandOptions {
  commit?: boolean;
  branch?: string | true;
  json?: boolean;
  candidate?: string;
}

export function registerApply(program: Command, io: CliIO, setExit: (code: number) => void): void {
  program
    .command('apply')
    .description("take a VERIFIED run's exact change: into the checkout when HEAD is still the run's base, else onto a new branch")
    .argument('[run-id]', 'a run id, a unique prefix, or "latest"', 'latest')
    .option('--commit', 'commit it, with trailers naming the run and the contract hashes')
    .option('--branch [name]', "put it on a new branch from the run's base (default elenchos/<task>-<run-id>); the checkout is not touched")
    .option('--candidate <name>', "a best-of run: take this VERIFIED candidate's change instead of the winner's")
    .option('--json', 'print the result as JSON')
    .action(async (runId: string, options: ApplyCommandOptions) => {
      const { applyRun } = await import('../core/stored-runs/apply-run.js');
      const result = await applyRun({
        cwd: io.cwd,
        env: io.env,
        runId,
        commit: options.commit,
        branch: options.branch,
        candidate: options.candidate,
        signingKey: signingKeyFor(io.env),
      });
      if (options.json) writeLine(io.stdout, JSON.stringify(result, null, 2));
      else for (const line of describeApply(result)) writeHuman(io.stdout, line);
      setExit(ExitCode.VERIFIED);
    });
}

/** After `run --apply/--commit/--branch`: a VERIFIED run's change taken, and what was done said (with --json on stderr: stdout is the run record alone). */
export async function applyAfterRun(
  record: Pick<RunRecord, 'state' | 'runId'>,
  options: ApplyWhenVerified & { json?: boolean },
  io: CliIO,
): Promise<void> {
  const { applyIfVerified } = await import('../core/stored-runs/apply-run.js');
  const applied = await applyIfVerified(record, options, io);
  if (applied) for (const line of describeApply(applied)) writeHuman(options.json ? io.stderr : io.stdout, line);
}

/** What was done and the next command, for people. */
export function describeApply(result: ApplyRunResult): string[] {
  const base = result.base.slice(0, 12);
  if (result.into === 'branch') {
    return [
      `created branch ${result.branch} at ${result.commit.slice(0, 12)}: the verified change of run ${result.runId} (attempt ${result.attempt}) on its base ${base}`,
      ...(result.headMoved ? [`  HEAD is no longer the run's base ${base}, so your checkout was left as it is`] : []),
      `  merge it:    git merge ${result.branch}`,
      `  look first:  git show ${result.branch}`,
    ];
  }
  if (result.paths.length === 0) return [`run ${result.runId} verified its base ${base} unchanged: nothing to apply`];
  if (result.commit) {
    return [
      `committed ${result.commit.slice(0, 12)}: the verified change of run ${result.runId} (attempt ${result.attempt}), ${result.paths.length} path(s), trailers Elenchos-Run and Elenchos-Contract`,
    ];
  }
  return [
    `applied the verified change of run ${result.runId} (attempt ${result.attempt}) to your checkout: ${result.paths.length} path(s), not staged`,
    '  review it:   git status; git diff',
    `  commit it:   git add -A && git commit   (or next time: elenchos apply ${result.runId} --commit)`,
  ];
}
