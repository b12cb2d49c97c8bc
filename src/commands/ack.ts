// `elenchos ack <task>`: record that a person looked at a task flagged NEEDS_HUMAN.
import type { Command } from 'commander';
import { writeLine, type CliIO } from '../cli-io.js';
import { ExitCode } from '../errors.js';

export interface AckCommandOptions {
  by?: string;
  note?: string;
  config?: string;
  json?: boolean;
}

export function registerAck(program: Command, io: CliIO, setExit: (code: number) => void): void {
  program
    .command('ack')
    .description('record that you looked at a task flagged NEEDS_HUMAN, so that `elenchos run` takes it again')
    .argument('<task>', 'the task contract file')
    .option('--by <name>', "who looked (default: git's user.name <user.email>)")
    .option('--note <text>', 'what you found, kept with the acknowledgement')
    .option('--config <file>', 'config file (default: elenchos.config.json at the repository root)')
    .option('--json', 'print the acknowledgement as JSON')
    .action(async (taskFile: string, options: AckCommandOptions) => {
      const { ackTask } = await import('../core/stored-runs/ack.js');
      const { file, ack } = await ackTask({
        cwd: io.cwd,
        taskFile,
        configFile: options.config,
        env: io.env,
        by: options.by,
        note: options.note,
      });
      if (options.json) writeLine(io.stdout, JSON.stringify({ file, ...ack }, null, 2));
      else {
        writeLine(io.stdout, `acknowledged ${ack.taskFile} (runs up to ${ack.upToRunId}) by ${ack.by}; kept in ${file}`);
        for (const reason of ack.reasons) writeLine(io.stdout, `  was: ${reason}`);
      }
      setExit(ExitCode.VERIFIED);
    });
}
