// `elenchos lock [tasks...] [--update]`: the committed record of which steps verify which criterion.
import type { Command } from 'commander';
import { writeLine, type CliIO } from '../cli-io.js';
import { ExitCode } from '../errors.js';

export interface LockCommandOptions {
  config?: string;
  update?: boolean;
  json?: boolean;
}

export function registerLock(program: Command, io: CliIO, setExit: (code: number) => void): void {
  program
    .command('lock')
    .description("write each task's test-weakening lock (<task>.lock.json) to commit beside it")
    .argument('[tasks...]', "task contract files (default: the config's tasks)")
    .option('--update', 'rewrite a lock that differs from the test as it stands (review the diff)')
    .option('--config <file>', 'config file (default: elenchos.config.json at the repository root)')
    .option('--json', 'print the result as JSON')
    .action(async (files: string[], options: LockCommandOptions) => {
      const { lockTasks } = await import('../core/lock/lock-tasks.js');
      const { renderLockResult } = await import('../reporters/lock-report.js');
      const result = await lockTasks({ cwd: io.cwd, files, configFile: options.config, env: io.env, update: options.update === true });
      if (options.json) writeLine(io.stdout, JSON.stringify(result, null, 2));
      else renderLockResult(result, io);
      setExit(result.ok ? ExitCode.VERIFIED : ExitCode.INPUT);
    });
}
