// `elenchos init`: a config, one example contract with its test, the ignore rule, optionally a CI workflow.
import { createInterface } from 'node:readline/promises';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { writeLine, type CliIO } from '../cli-io.js';
import type { AgentType } from '../config/config-schema.js';
import { ExitCode, InputError } from '../errors.js';
import { parseAtLeastOne } from './run-best-of.js';

export interface InitCommandOptions {
  yes?: boolean;
  json?: boolean;
  verifier?: 'kane' | 'playwright';
  agent?: AgentType;
  appCommand?: string;
  ci?: 'github';
  agents?: boolean;
  k8s?: boolean;
  shares?: number;
  stopAtFirst?: boolean;
}

export function registerInit(program: Command, io: CliIO, setExit: (code: number) => void): void {
  program
    .command('init')
    .description(
      'set Elenchos up in this repository: config, an example task contract and its test, the .elenchos/ ignore rule (never overwrites a file)',
    )
    .option('-y, --yes', 'write without asking (the default when stdin or stdout is not a terminal)')
    .option('--json', 'print what was detected and written as JSON (implies --yes)')
    .addOption(
      new Option('--verifier <type>', 'the verifier (default: playwright when the project has it, else kane)').choices([
        'kane',
        'playwright',
      ]),
    )
    .addOption(
      new Option('--agent <type>', 'the agent (default: the first of claude, codex, gemini, opencode on PATH, else claude)').choices([
        'claude',
        'codex',
        'gemini',
        'opencode',
        'command',
      ]),
    )
    .option(
      '--app-command <command>',
      'the command that starts the app on {port} (default: from package.json scripts dev/start)',
      parseCommandLine,
    )
    .addOption(new Option('--ci <provider>', 'also write a CI workflow').choices(['github']))
    .option('--agents', 'with --ci github: also the agents workflow (shares of run --shard, a join, the winners pushed; docs/scale.md)')
    .option('--k8s', 'also write a Kubernetes Indexed Job of shares, its join Job and the Dockerfile of their image (docs/scale.md)')
    .option('--shares <n>', 'share jobs of the agents workflow or Job indexes (default 2)', parseAtLeastOne)
    .option('--stop-at-first', 'with --k8s: end the Job at the first share that is VERIFIED (a successPolicy)')
    .action(async (options: InitCommandOptions) => {
      if (options.agents && options.ci !== 'github')
        throw new InputError('--agents writes the agents workflow of --ci github: add --ci github');
      const { applyInit, planInit } = await import('../core/init/init-project.js');
      const { renderInit } = await import('../reporters/init-report.js');
      const plan = await planInit({
        cwd: io.cwd,
        env: io.env,
        verifier: options.verifier,
        agent: options.agent,
        appCommand: options.appCommand,
        ci: options.ci,
        agents: options.agents,
        k8s: options.k8s,
        shares: options.shares,
        stopAtFirst: options.stopAtFirst,
      });
      const ask = !options.yes && !options.json && io.isTTY && Boolean(io.stdin.isTTY);
      if (ask) {
        renderInit(plan, io.stdout, false);
        if (!(await confirm(io, 'Write these files?'))) {
          writeLine(io.stdout, 'nothing written');
          setExit(ExitCode.VERIFIED);
          return;
        }
      }
      const result = await applyInit(plan);
      if (options.json) writeLine(io.stdout, JSON.stringify(result, null, 2));
      else renderInit(result, io.stdout, true);
      setExit(ExitCode.VERIFIED);
    });
}

async function confirm(io: CliIO, question: string): Promise<boolean> {
  const rl = createInterface({ input: io.stdin, output: io.stdout });
  try {
    const answer = (await rl.question(`${question} [Y/n] `)).trim().toLowerCase();
    return answer === '' || answer === 'y' || answer === 'yes';
  } finally {
    rl.close();
  }
}

/** A command line: written into the config as app.command, so an empty one would be a config that cannot start anything. */
function parseCommandLine(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('expected the command that starts the app, e.g. "npm run dev -- --port {port}"');
  return value;
}
