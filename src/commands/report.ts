// `elenchos report <run-id>`: one self-contained HTML file of a run.
import type { Command } from 'commander';
import { writeHuman, type CliIO } from '../cli-io.js';
import { ExitCode } from '../errors.js';
import { signingKeyFor } from '../util/signing-key.js';

export function registerReport(program: Command, io: CliIO, setExit: (code: number) => void): void {
  program
    .command('report')
    .description('write one self-contained HTML report of a run')
    .argument('[run-id]', 'a run id, a unique prefix, or "latest"', 'latest')
    .option('--out <file>', 'where to write it (default .elenchos/reports/<run-id>.html)')
    .action(async (runId: string, options: { out?: string }) => {
      const { writeReport } = await import('../core/stored-runs/report.js');
      const { renderHtmlReport } = await import('../reporters/html-report.js');
      const signingKey = signingKeyFor(io.env);
      const file = await writeReport({ cwd: io.cwd, env: io.env, runId, out: options.out, signingKey, render: renderHtmlReport });
      writeHuman(io.stdout, file);
      setExit(ExitCode.VERIFIED);
    });
}
