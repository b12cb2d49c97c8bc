// `elenchos run <task…>` / `--all` / `--shard i/n` / `--export <file>`: several tasks in one command, one
// line per task as it ends, one table (or one --json document) and one exit code at the end.
import { resolve } from 'node:path';
import { writeHuman, writeLine, type CliIO } from '../cli-io.js';
import { InputError } from '../errors.js';
import { signingKeyFor } from '../util/signing-key.js';
import { prefixed } from './run-best-of.js';
import { runOverrides, type RunCommandOptions } from './run-options.js';

export interface RunManyFlags extends RunCommandOptions {
  all?: boolean;
  shard?: string;
  export?: string;
}

/** Several tasks, a glob, `--all`, `--shard` or `--export`: the tasks go together (docs/scale.md). */
export function isManyRun(tasks: readonly string[], options: RunManyFlags): boolean {
  return (
    tasks.length !== 1 || /[*?[\]{}]/.test(tasks[0]!) || options.all === true || options.shard !== undefined || options.export !== undefined
  );
}

export async function runManyCommand(tasks: string[], options: RunManyFlags, io: CliIO, setExit: (code: number) => void): Promise<void> {
  if (tasks.length === 0 && !options.all)
    throw new InputError('name a task contract (or several, or a glob), or --all for the config\'s "tasks"');
  if (tasks.length > 0 && options.all) throw new InputError('--all runs the config\'s "tasks": drop it, or drop the task files');
  if (options.apply || options.commit || options.branch !== undefined)
    throw new InputError(
      '--apply, --commit and --branch take one run: with several tasks, apply each VERIFIED one with elenchos apply <run-id>',
    );
  if (options.stopAtFirst && options.agents === undefined && options.bestOf === undefined)
    throw new InputError('--stop-at-first is for several candidates of a task: add --agents a,b or --best-of <n>');
  const { runMany } = await import('../core/many/run-many.js');
  const { resolveShard } = await import('../core/verify/shard-ci.js');
  const { terminalReporter } = await import('../reporters/terminal.js');
  const { describeTaskEnd, taskTable } = await import('../reporters/many-summary.js');
  const { withInterrupts } = await import('./interrupts.js');
  const shard = options.shard === undefined ? undefined : resolveShard(options.shard, io.env);
  const human = options.json ? null : io.stdout;
  const result = await withInterrupts(io, (signal) =>
    runMany({
      cwd: io.cwd,
      tasks,
      configFile: options.config,
      env: io.env,
      overrides: runOverrides(options),
      signal,
      agents: options.agents,
      bestOf: options.bestOf,
      parallel: options.parallel,
      stopAtFirst: options.stopAtFirst,
      shard,
      reporterFor: (task, candidate) =>
        human
          ? terminalReporter({ stream: prefixed(human, `[${candidate ? `${task} ${candidate}` : task}] `), verbose: options.verbose })
          : { onEvent: () => undefined },
      onLine: (line) => human && writeHuman(human, `elenchos: ${line}`),
      onTaskEnd: (task) => human && writeHuman(human, `elenchos: ${describeTaskEnd(task)}`),
    }),
  );
  if (options.export !== undefined) {
    const { exportShare } = await import('../core/many/export-share.js');
    const file = resolve(io.cwd, options.export);
    const manifest = await exportShare(result, { file, agents: options.agents, bestOf: options.bestOf, signingKey: signingKeyFor(io.env) });
    writeHuman(
      options.json ? io.stderr : io.stdout,
      `elenchos: exported share ${manifest.share.index}/${manifest.share.total} (${manifest.runs.length} run(s)) to ${options.export}`,
    );
  }
  if (options.json) {
    const runs = result.tasks.map((t) => t.record ?? { file: t.task, refused: t.notRun ?? 'not run' });
    writeLine(io.stdout, JSON.stringify({ state: result.state, group: result.group, runs }, null, 2));
  } else {
    for (const line of taskTable(result.tasks, { state: result.state, exitCode: result.exitCode, group: result.group.id }))
      writeHuman(io.stdout, line);
  }
  setExit(result.exitCode);
}
