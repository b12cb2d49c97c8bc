// `elenchos restore <run-id>`: an attempt's workspace back as a detached worktree.
import type { Command } from 'commander';
import { writeLine, type CliIO } from '../cli-io.js';
import { ExitCode } from '../errors.js';
import { parseCount } from './options.js';

export function registerRestore(program: Command, io: CliIO, setExit: (code: number) => void): void {
  program
    .command('restore')
    .description("recreate an attempt's workspace (base commit + diff + untracked files) as a detached worktree")
    .argument('<run-id>', 'a run id, a unique prefix, or "latest"')
    .option('--attempt <n>', 'which attempt (default: the last one)', parseCount)
    .option('--to <dir>', 'where (default: .elenchos/restored/<run-id>-<attempt>)')
    .action(async (runId: string, options: { attempt?: number; to?: string }) => {
      const { restoreAttempt } = await import('../core/stored-runs/restore.js');
      const restored = await restoreAttempt({ cwd: io.cwd, runId, attempt: options.attempt, to: options.to });
      writeLine(
        io.stdout,
        `restored attempt ${restored.attempt} of ${restored.runId} at ${restored.dir} (base ${restored.base.slice(0, 12)})`,
      );
      setExit(ExitCode.VERIFIED);
    });
}
