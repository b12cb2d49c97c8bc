// `elenchos check [task.json...]`: lint contracts, config, test files and the criteria mapping.
import type { Command } from 'commander';
import { writeLine, type CliIO } from '../cli-io.js';
import { ExitCode } from '../errors.js';

export interface CheckCommandOptions {
  config?: string;
  json?: boolean;
  lockBase?: string;
}

export function registerCheck(program: Command, io: CliIO, setExit: (code: number) => void): void {
  program
    .command('check')
    .description('validate task contracts, the config, test files and the criteria ↔ step mapping')
    .argument('[tasks...]', "task contract files (JSON); default: the config's tasks")
    .option('--config <file>', 'config file (default: elenchos.config.json at the repository root)')
    .option('--lock-base <ref>', 'also refuse a test lock changed since <ref> without its contract')
    .option('--json', 'print the report as JSON')
    .action(async (files: string[], options: CheckCommandOptions) => {
      // Asked first, so that git runs while the check's modules load (their schemas take longer than git).
      const { repoRootOrCwd, withGitEnvironment } = await import('../git/git.js');
      const root = withGitEnvironment(io.env, () => repoRootOrCwd(io.cwd));
      root.catch(() => undefined); // awaited by the check; a failure is reported there, never unhandled
      const { checkTasks } = await import('../core/check.js');
      const { renderCheckReport } = await import('../reporters/check-report.js');
      const report = await checkTasks({ cwd: io.cwd, files, configFile: options.config, env: io.env, lockBase: options.lockBase, root });
      if (options.json) writeLine(io.stdout, JSON.stringify(report, null, 2));
      else renderCheckReport(report, io);
      setExit(report.ok ? ExitCode.VERIFIED : ExitCode.INPUT);
    });
}
