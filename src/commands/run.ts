// `elenchos run <task.json>`: the agent loop; prints progress, or the run record with --json.
import type { Command } from 'commander';
import { writeHuman, writeLine, type CliIO } from '../cli-io.js';
import { InputError } from '../errors.js';
import { parseCount, parsePositive } from './options.js';
import { parseAtLeastOne, parseNames, runBestOfCommand } from './run-best-of.js';
import { runOverrides } from './run-options.js';
import { isManyRun, runManyCommand, type RunManyFlags } from './run-many.js';

export function registerRun(program: Command, io: CliIO, setExit: (code: number) => void): void {
  program
    .command('run')
    .description('let the agent do a task in a worktree, and let the verifier decide (VERIFIED 0, FAILED 1, ERROR 2)')
    .argument('[tasks...]', 'task contract(s) (JSON), or globs; several run together (docs/scale.md)')
    .option('--all', 'run every task of the config\'s "tasks"')
    .option('--config <file>', 'config file (default: elenchos.config.json at the repository root)')
    .option('--json', 'print the run record (run.json) instead of progress')
    .option('--keep', 'keep the worktree after the run (retainWorkspace)')
    .option('--fresh', 'a fresh worktree, not a warm one from the pool (worktreePool.enabled false)')
    .option('--max-repairs <n>', 'repairs after the first attempt (maxRepairAttempts)', parseCount)
    .option(
      '--max-cost-usd <usd>',
      'end the run ERROR BUDGET_EXCEEDED before the agent would pass this cost (budget.maxCostUsd)',
      parsePositive,
    )
    .option(
      '--max-kane-credits <n>',
      'end it before a verification would pass this many Kane credits (budget.maxKaneCredits)',
      parsePositive,
    )
    .option('--max-minutes <n>', 'end it before a step would pass this many minutes (budget.maxMinutes)', parsePositive)
    .option(
      '--agents <names>',
      'best of several: one candidate per named agent (config `agents`; `default` is `agent`), comma-separated',
      parseNames,
    )
    .option('--best-of <n>', 'best of several: n candidates of the default agent (or of each --agents one)', parseAtLeastOne)
    .option(
      '--parallel <k>',
      'runs at once: candidates of a best-of task, and tasks of several (default: the number of cores)',
      parseAtLeastOne,
    )
    .option('--shard <i/n>', 'run only share i of n of the plan (tasks × candidates); "auto" reads the CI\'s job index (docs/scale.md)')
    .option('--export <file>', "write this share's sealed runs to one tar.gz for elenchos join")
    .option('--stop-at-first', 'stop the other candidates (STOPPED) as soon as one is VERIFIED')
    .option('--verbose', "show the app's output too")
    .option('--apply', 'when VERIFIED, apply the change to the checkout (as elenchos apply)')
    .option('--commit', 'when VERIFIED, apply the change and commit it, with trailers naming the run and the contract')
    .option('--branch [name]', 'when VERIFIED, put the change on a new branch from the base (as elenchos apply --branch)')
    .action(async (tasks: string[], options: RunManyFlags) => {
      if (isManyRun(tasks, options)) return runManyCommand(tasks, options, io, setExit);
      const taskFile = tasks[0]!;
      if (options.agents !== undefined || options.bestOf !== undefined) return runBestOfCommand(taskFile, options, io, setExit);
      if (options.parallel !== undefined || options.stopAtFirst)
        throw new InputError('--parallel and --stop-at-first are for several candidates: add --agents a,b or --best-of <n>');
      // The first line before the run's modules load and before preflight asks git anything (docs/performance.md#start-up-and-a-runs-phases).
      if (!options.json) writeHuman(io.stdout, `elenchos run ${taskFile}: checking the config, the contract and the checkout`);
      const { runTask } = await import('../core/run/run-task.js');
      const { terminalReporter } = await import('../reporters/terminal.js');
      const { withInterrupts } = await import('./interrupts.js');
      const { blindGuardsReporter } = await import('../reporters/guard-lines.js');
      const reporter = options.json ? blindGuardsReporter(io.stderr) : terminalReporter({ stream: io.stdout, verbose: options.verbose });
      const result = await withInterrupts(io, (signal) =>
        runTask({
          cwd: io.cwd,
          taskFile,
          configFile: options.config,
          env: io.env,
          overrides: runOverrides(options),
          signal,
          reporter,
        }),
      );
      if (options.json) writeLine(io.stdout, JSON.stringify(result.record, null, 2));
      setExit(result.exitCode);
      const { applyAfterRun } = await import('./apply.js');
      await applyAfterRun(result.record, options, io);
    });
}
