// `elenchos run <task> --agents a,b` / `--best-of N`: the candidates' progress, prefixed by name, then the choice.
import { InvalidArgumentError } from 'commander';
import { Writable } from 'node:stream';
import { writeHuman, writeLine, type CliIO } from '../cli-io.js';
import { AGENT_NAME_PATTERN } from '../config/agent-name.js';
import { runOverrides, type RunCommandOptions } from './run-options.js';

/** `a,b,c`: agent names (config `agents` keys, or `default`). */
export function parseNames(value: string): string[] {
  const names = value.split(',').map((n) => n.trim());
  const bad = names.find((n) => !AGENT_NAME_PATTERN.test(n));
  if (bad !== undefined) throw new InvalidArgumentError(`"${bad}" is not an agent name (a-z, 0-9, "-", "_"); e.g. --agents claude,codex`);
  return names;
}

/** A whole number ≥ 1. */
export function parseAtLeastOne(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('expected a whole number, 1 or more');
  return Number(value);
}

/** Every line written to `stream` prefixed with `[name] `, so parallel candidates' progress stays readable. */
export function prefixed(stream: NodeJS.WritableStream, prefix: string): NodeJS.WritableStream {
  let pending = '';
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) stream.write(`${prefix}${line}\n`);
      done();
    },
  });
}

export async function runBestOfCommand(taskFile: string, options: RunCommandOptions, io: CliIO, setExit: (code: number) => void) {
  const { runBestOf } = await import('../core/best-of/run-best-of.js');
  const { terminalReporter } = await import('../reporters/terminal.js');
  const { withInterrupts } = await import('./interrupts.js');
  const { describeBestOf } = await import('../reporters/best-of-summary.js');
  const human = options.json ? null : io.stdout;
  const result = await withInterrupts(io, (signal) =>
    runBestOf({
      cwd: io.cwd,
      taskFile,
      configFile: options.config,
      env: io.env,
      overrides: runOverrides(options),
      signal,
      agents: options.agents,
      bestOf: options.bestOf,
      parallel: options.parallel,
      stopAtFirst: options.stopAtFirst,
      reporterFor: (name) =>
        human ? terminalReporter({ stream: prefixed(human, `[${name}] `), verbose: options.verbose }) : { onEvent: () => undefined },
      onLine: (line) => human && writeHuman(human, `elenchos: ${line}`),
    }),
  );
  if (options.json) writeLine(io.stdout, JSON.stringify(result.record, null, 2));
  else for (const line of describeBestOf(result.record, result.runDir, result.exitCode)) writeHuman(io.stdout, line);
  setExit(result.exitCode);
  const { applyAfterRun } = await import('./apply.js');
  await applyAfterRun(result.record, options, io);
}
