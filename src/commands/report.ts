// `elenchos report <run-id>` and `elenchos evidence verify <run-id>`.
import type { Command } from 'commander';
import { writeLine, type CliIO } from '../cli-io.js';
import { ExitCode } from '../errors.js';

export function registerReport(program: Command, io: CliIO, setExit: (code: number) => void): void {
  program
    .command('report')
    .description('write one self-contained HTML report of a run')
    .argument('[run-id]', 'a run id, a unique prefix, or "latest"', 'latest')
    .option('--out <file>', 'where to write it (default .elenchos/reports/<run-id>.html)')
    .action(async (runId: string, options: { out?: string }) => {
      const { writeReport } = await import('../core/report.js');
      const file = await writeReport({ cwd: io.cwd, runId, out: options.out, signingKey: io.env.ELENCHOS_SIGNING_KEY || undefined });
      writeLine(io.stdout, file);
      setExit(ExitCode.VERIFIED);
    });
  program
    .command('evidence')
    .description('check stored evidence')
    .command('verify')
    .description("check a run's files against its manifest (and its HMAC when ELENCHOS_SIGNING_KEY is set); exit 1 on any mismatch")
    .argument('[run-id]', 'a run id, a unique prefix, or "latest"', 'latest')
    .action(async (runId: string) => {
      const { showStoredRun } = await import('../core/inspect-runs.js');
      const { verifyManifest } = await import('../evidence/manifest.js');
      const shown = await showStoredRun(io.cwd, runId);
      const check = await verifyManifest(shown.dir, { signingKey: io.env.ELENCHOS_SIGNING_KEY || undefined });
      if (check.ok) writeLine(io.stdout, `${shown.record.runId}: evidence intact (${shown.dir})`);
      else {
        writeLine(io.stdout, `${shown.record.runId}: evidence does NOT match its manifest`);
        for (const problem of check.problems) writeLine(io.stdout, `  ${problem}`);
      }
      setExit(check.ok ? ExitCode.VERIFIED : ExitCode.FAILED);
    });
}
