// The action of `elenchos verify` without --verifier-only: run every task, then report.
import path from 'node:path';
import { writeLine, type CliIO } from '../cli-io.js';
import type { RunReporter } from '../core/events.js';
import { verifyAll } from '../core/verify/verify-all.js';
import { resolveShard } from '../core/verify/shard-ci.js';
import { githubAnnotations, writeJobSummary } from '../reporters/github.js';
import { renderJunit } from '../reporters/junit.js';
import { terminalReporter } from '../reporters/terminal.js';
import { blindGuardsReporter } from '../reporters/guard-lines.js';
import { withInterrupts } from './interrupts.js';
import type { VerifyCommandOptions } from './verify-options.js';
import { printSummary, writeReportFile } from './verify-summary.js';

/** Runs the tasks and writes the terminal summary, JSON, JUnit and GitHub outputs; returns the exit code. */
export async function verifyAllCommand(tasks: string[], options: VerifyCommandOptions, io: CliIO): Promise<number> {
  const shard = options.shard ? resolveShard(options.shard, io.env) : undefined;
  const workers = options.workers ?? 1;
  const reporterFor = (file: string): RunReporter => {
    if (options.json) return blindGuardsReporter(io.stderr);
    // In parallel every line names its task, so interleaved progress stays readable.
    const stream = workers > 1 ? prefixed(io.stdout, `[${file}] `) : io.stdout;
    return terminalReporter({ stream });
  };
  const result = await withInterrupts(io, (signal) =>
    verifyAll({
      cwd: io.cwd,
      tasks,
      configFile: options.config,
      env: io.env,
      overrides: {
        retainWorkspace: options.keep ? true : undefined,
        'worktreePool.enabled': options.fresh ? false : undefined,
        'budget.maxKaneCredits': options.maxKaneCredits,
        'budget.maxMinutes': options.maxMinutes,
      },
      workers,
      shard,
      inPlace: options.inPlace,
      lockBase: options.lockBase,
      requireGuards: options.require,
      signal,
      reporterFor,
    }),
  );
  if (options.json)
    writeLine(
      io.stdout,
      JSON.stringify(
        {
          metadata: result.metadata,
          runs: result.tasks.map((t) =>
            t.record ? { ...t.record, needsHuman: t.needsHuman ?? null } : { file: t.file, refused: t.refused },
          ),
        },
        null,
        2,
      ),
    );
  else {
    // A blank line between the runs' progress and the summary; a summary alone starts at once.
    if (result.tasks.some((t) => t.record)) writeLine(io.stdout);
    printSummary(io, result.tasks, { title: 'elenchos verify', shard: shard ? `${shard.index}/${shard.count}` : null });
  }
  if (options.junit) await writeReportFile(path.resolve(io.cwd, options.junit), renderJunit(result.tasks));
  if (io.env.GITHUB_ACTIONS === 'true') {
    // With --json, stdout is the JSON document alone.
    if (!options.json) for (const line of githubAnnotations(result.tasks)) writeLine(io.stdout, line);
    if (io.env.GITHUB_STEP_SUMMARY) await writeJobSummary(io.env.GITHUB_STEP_SUMMARY, result.tasks);
  }
  return result.exitCode;
}

/** A stream that prefixes every line written to `target`. */
function prefixed(target: NodeJS.WritableStream, prefix: string): NodeJS.WritableStream {
  return {
    write(chunk: string | Uint8Array) {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      return target.write(text.replace(/^(?=.)/gm, prefix));
    },
  } as NodeJS.WritableStream;
}
