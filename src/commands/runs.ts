// `elenchos runs` and `elenchos show <run-id>`: browse stored evidence.
import type { Command } from 'commander';
import { writeLine, type CliIO } from '../cli-io.js';
import { ExitCode } from '../errors.js';

export function registerRuns(program: Command, io: CliIO, setExit: (code: number) => void): void {
  program
    .command('runs')
    .description('list stored runs, newest first')
    .option('--json', 'print the run records as JSON')
    .action(async (options: { json?: boolean }) => {
      const { listStoredRuns } = await import('../core/stored-runs/inspect-runs.js');
      const { renderRunList } = await import('../reporters/run-list.js');
      const { runs, unreadable, needsHuman, dead } = await listStoredRuns(io.cwd);
      if (options.json) writeLine(io.stdout, JSON.stringify({ runs, unreadable, needsHuman, dead }, null, 2));
      else renderRunList(runs, unreadable, io, needsHuman, new Set(dead));
      setExit(ExitCode.VERIFIED);
    });
  program
    .command('show')
    .description('show one run: attempts, criteria, findings, reasons and evidence paths')
    .argument('[run-id]', 'a run id, a unique prefix of one, or "latest"', 'latest')
    .option('--json', 'print the run record and every attempt.json as JSON')
    .action(async (runId: string, options: { json?: boolean }) => {
      const { showStoredRun } = await import('../core/stored-runs/inspect-runs.js');
      const { renderRun } = await import('../reporters/run-detail.js');
      const shown = await showStoredRun(io.cwd, runId);
      if (options.json)
        writeLine(
          io.stdout,
          JSON.stringify(
            {
              record: shown.record,
              attempts: shown.attempts,
              needsHuman: shown.needsHuman,
              candidates: shown.candidates,
              groupRuns: shown.groupRuns,
            },
            null,
            2,
          ),
        );
      else renderRun(shown, io);
      setExit(ExitCode.VERIFIED);
    });
}
