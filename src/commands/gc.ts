// `elenchos gc`: housekeeping of runs killed outright and of worktrees no live run owns.
import type { Command } from 'commander';
import { writeHuman, writeLine, type CliIO } from '../cli-io.js';
import { ExitCode } from '../errors.js';

export function registerGc(program: Command, io: CliIO, setExit: (code: number) => void): void {
  program
    .command('gc')
    .description(
      'stop what killed runs left running, seal them ABANDONED, remove worktrees no live run owns, trim the warm worktree pool and the setup cache (evidence is never deleted)',
    )
    .option('--dry-run', 'only say what would be done')
    .option('--pool', 'also remove every idle warm worktree (by default only those beyond worktreePool.size)')
    .option('--cache', 'also remove every idle setup cache entry (by default only old ones, and the least used beyond setupCache.maxBytes)')
    .option('--json', 'print the result as JSON')
    .action(async (options: { dryRun?: boolean; json?: boolean; pool?: boolean; cache?: boolean }) => {
      const { collectGarbage } = await import('../core/stored-runs/gc.js');
      // One line per step on stderr as it starts (a sweep of the process table can take seconds); the results on stdout.
      const onStep = options.json ? undefined : (message: string) => writeHuman(io.stderr, `… ${message}`);
      const result = await collectGarbage({
        cwd: io.cwd,
        env: io.env,
        dryRun: options.dryRun,
        pool: options.pool,
        cache: options.cache,
        onStep,
      });
      // A sweep that could not look found nothing, which is no all-clear: said, and gc fails (docs/security.md#the-process-table).
      const blind = result.processTable.source === 'unavailable';
      if (options.json) writeLine(io.stdout, JSON.stringify(result, null, 2));
      else {
        if (blind || result.processTable.blind.length > 0)
          writeHuman(
            io.stderr,
            `elenchos gc: ${blind ? 'could not look for processes' : `could not see what processes hold (${result.processTable.blind.join(', ')})`}: ${result.processTable.why}; processes of dead runs may still run`,
          );
        const verb = options.dryRun ? 'would mark' : 'marked';
        for (const p of result.stopped)
          writeHuman(io.stdout, `${options.dryRun ? 'would stop' : 'stopped'} process ${p.pid} of ${p.runId} (its run is dead)`);
        for (const p of result.orphans)
          writeHuman(
            io.stdout,
            `${options.dryRun ? 'would stop' : 'stopped'} process ${p.pid} (${shorten(p.command)}): the elenchos that started it (pid ${p.ownerPid}) is gone`,
          );
        for (const id of result.abandoned) writeHuman(io.stdout, `${verb} ${id} ERROR ABANDONED (its process is gone)`);
        for (const dir of result.removedWorktrees) writeHuman(io.stdout, `${options.dryRun ? 'would remove' : 'removed'} worktree ${dir}`);
        for (const dir of result.trimmedPool)
          writeHuman(io.stdout, `${options.dryRun ? 'would remove' : 'removed'} idle warm worktree ${dir}`);
        for (const entry of result.trimmedCache)
          writeHuman(
            io.stdout,
            `${options.dryRun ? 'would remove' : 'removed'} setup cache entry ${entry.key.slice(0, 12)} (${entry.bytes} bytes): ${entry.reason}`,
          );
        for (const id of result.running) writeHuman(io.stdout, `left ${id} alone: still running`);
        for (const id of result.foreign) writeHuman(io.stdout, `left ${id} alone: running on another host`);
        if (
          result.abandoned.length +
            result.stopped.length +
            result.orphans.length +
            result.removedWorktrees.length +
            result.trimmedPool.length +
            result.trimmedCache.length ===
          0
        )
          writeHuman(io.stdout, blind ? 'nothing else to clean' : 'nothing to clean');
      }
      setExit(blind ? ExitCode.ERROR : ExitCode.VERIFIED);
    });
}

/** A command line cut to fit one terminal line. */
function shorten(command: string): string {
  return command.length > 80 ? `${command.slice(0, 79)}…` : command;
}
