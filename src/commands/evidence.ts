// `elenchos evidence verify <run-id>`: exit 1 when a stored run no longer matches its manifest.
import type { Command } from 'commander';
import { writeLine, type CliIO } from '../cli-io.js';
import { ExitCode } from '../errors.js';
import { signingKeyFor } from '../util/signing-key.js';

export function registerEvidence(program: Command, io: CliIO, setExit: (code: number) => void): void {
  program
    .command('evidence')
    .description('check stored evidence')
    .command('verify')
    .description(
      "check a run's files against its manifests, the run's and each attempt's (and their HMACs with a signing key: --signing-key-file, ELENCHOS_SIGNING_KEY_FILE or ELENCHOS_SIGNING_KEY); exit 1 on any mismatch",
    )
    .argument('[run-id]', 'a run id, a unique prefix, or "latest"', 'latest')
    .action(async (runId: string) => {
      const { verifyEvidence } = await import('../core/verify/verify-evidence.js');
      const check = await verifyEvidence({ cwd: io.cwd, runId, signingKey: signingKeyFor(io.env) });
      if (check.ok) writeLine(io.stdout, `${check.runId}: evidence intact (${check.dir})`);
      else {
        writeLine(io.stdout, `${check.runId}: evidence does NOT match its manifest`);
        for (const problem of check.problems) writeLine(io.stdout, `  ${problem}`);
      }
      setExit(check.ok ? ExitCode.VERIFIED : ExitCode.FAILED);
    });
}
