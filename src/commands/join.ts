// `elenchos join <export…>`: shares of a split plan, computed on other machines, checked and re-verified here;
// one run per task with its candidates and the choice (docs/scale.md#join).
import type { Command } from 'commander';
import { writeHuman, writeLine, type CliIO } from '../cli-io.js';
import { withAttestation, type AttestFlags } from './attest-option.js';
import { prefixed } from './run-best-of.js';

interface JoinFlags extends AttestFlags {
  json?: boolean;
  verbose?: boolean;
}

export function registerJoin(program: Command, io: CliIO, setExit: (code: number) => void): void {
  program
    .command('join')
    .description(
      "import the exports of run --shard i/n --export, check each against this checkout, re-verify each task's best candidate here (VERIFIED 0, FAILED 1, ERROR 2, a share set aside 4)",
    )
    .argument('<exports...>', 'the tar.gz files run --export wrote')
    .option('--config <file>', 'config file (default: elenchos.config.json at the repository root)')
    .option('--json', 'print { "state", "group", "problems", "shares", "runs" } instead of progress')
    .option('--verbose', "show the app's output too")
    .option('--attest <file>', 'also write a signed in-toto attestation of the --json verdict (docs/ci.md)')
    .option(
      '--attest-key <key>',
      "the Ed25519 private key for --attest (a PEM file, or env:NAME), or sigstore: keyless, with the CI's OIDC identity",
    )
    .action(async (files: string[], options: JoinFlags) => {
      setExit(await withAttestation(io, options, (out) => joinCommand(files, options, out)));
    });
}

async function joinCommand(files: string[], options: JoinFlags, io: CliIO): Promise<number> {
  const { joinShares } = await import('../core/join/join-shares.js');
  const { terminalReporter } = await import('../reporters/terminal.js');
  const { describeTaskEnd, taskTable } = await import('../reporters/many-summary.js');
  const { withInterrupts } = await import('./interrupts.js');
  const human = options.json ? null : io.stdout;
  const result = await withInterrupts(io, (signal) =>
    joinShares({
      cwd: io.cwd,
      files,
      configFile: options.config,
      env: io.env,
      signal,
      reporterFor: (task, candidate) =>
        human
          ? terminalReporter({ stream: prefixed(human, `[${task} ${candidate}] `), verbose: options.verbose })
          : { onEvent: () => undefined },
      onLine: (line) => writeHuman(human ?? io.stderr, `elenchos: ${line}`),
      onTaskEnd: (task) => human && writeHuman(human, `elenchos: ${describeTaskEnd(task)}`),
    }),
  );
  if (options.json) {
    const runs = result.tasks.map((t) => t.record ?? { file: t.task, refused: t.notRun ?? 'not run' });
    writeLine(
      io.stdout,
      JSON.stringify({ state: result.state, group: result.group, problems: result.problems, shares: result.shares, runs }, null, 2),
    );
  } else {
    for (const line of taskTable(result.tasks, { state: result.state, exitCode: result.exitCode, group: result.group.id }))
      writeHuman(io.stdout, line);
    for (const problem of result.problems) writeHuman(io.stdout, `  ! ${problem}`);
  }
  return result.exitCode;
}
