// `elenchos author <task>`: write the test a contract names but does not have (Kane via kane-cli, Playwright a skeleton).
import type { Command } from 'commander';
import { writeLine, type CliIO } from '../cli-io.js';
import { ExitCode } from '../errors.js';

export interface AuthorCommandOptions {
  config?: string;
  json?: boolean;
}

export function registerAuthor(program: Command, io: CliIO, setExit: (code: number) => void): void {
  program
    .command('author')
    .description('write the test file a task contract names but does not have yet, left uncommitted for you to read')
    .argument('<task>', 'the task contract file')
    .option('--config <file>', 'config file (default: elenchos.config.json at the repository root)')
    .option('--json', 'print the result as JSON')
    .action(async (taskFile: string, options: AuthorCommandOptions) => {
      const { authorTest } = await import('../core/author-test.js');
      const { withInterrupts } = await import('./interrupts.js');
      const result = await withInterrupts(io, (signal) =>
        authorTest({ cwd: io.cwd, taskFile, configFile: options.config, env: io.env, signal }),
      );
      if (options.json) {
        writeLine(io.stdout, JSON.stringify(result, null, 2));
      } else {
        writeLine(
          io.stdout,
          `wrote ${result.testFile} (${result.verifier}${result.kane ? `, designed by kane-cli as ${result.kane.savedAs}` : ', a skeleton: every test fails until you write it'})`,
        );
        if (result.kane) {
          writeLine(
            io.stdout,
            `  criteria: ${Object.entries(result.kane.mapping)
              .map(([k, v]) => `${k} → ${v}`)
              .join(', ')}`,
          );
          writeLine(io.stdout, `  kane-cli's output: ${result.kane.scratch}`);
        }
        writeLine(io.stdout, `read it, then: elenchos check ${taskFile} && git add ${result.testFile} (it is not committed)`);
      }
      setExit(ExitCode.VERIFIED);
    });
}
