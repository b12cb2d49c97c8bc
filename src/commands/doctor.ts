// `elenchos doctor`: the machine, the config, the contracts and one real start of the app; exit 0 only when all is well.
import type { Command } from 'commander';
import { writeLine, type CliIO } from '../cli-io.js';
import type { DoctorCheck } from '../core/doctor/doctor-check.js';
import { ExitCode } from '../errors.js';

export interface DoctorCommandOptions {
  config?: string;
  json?: boolean;
  app?: boolean;
}

export function registerDoctor(program: Command, io: CliIO, setExit: (code: number) => void): void {
  program
    .command('doctor')
    .description(
      'check Node, git, the verifier and its login, Chromium, the agent, the config, every task contract, ports, and start the app once on HEAD',
    )
    .option('--config <file>', 'config file (default: elenchos.config.json at the repository root)')
    .option('--json', 'print the checks as JSON')
    .option('--no-app', 'do not start the app (skip the probe)')
    .action(async (options: DoctorCommandOptions) => {
      const { runDoctor } = await import('../core/doctor/doctor.js');
      const { renderDoctorCheck, renderDoctorEnd, renderDoctorProgress } = await import('../reporters/doctor-report.js');
      const { withInterrupts } = await import('./interrupts.js');
      // Each line as its check ends (the app probe alone may take a minute); --json prints once, at the end.
      const human = options.json
        ? {}
        : {
            onCheck: (check: DoctorCheck) => renderDoctorCheck(check, io.stdout),
            onProgress: (name: string, message: string) => renderDoctorProgress(name, message, io.stderr),
          };
      const report = await withInterrupts(io, (signal) =>
        runDoctor({ cwd: io.cwd, env: io.env, configFile: options.config, skipApp: options.app === false, signal, ...human }),
      );
      if (options.json) writeLine(io.stdout, JSON.stringify(report, null, 2));
      else renderDoctorEnd(report, io.stdout);
      setExit(report.ok ? ExitCode.VERIFIED : ExitCode.FAILED);
    });
}
