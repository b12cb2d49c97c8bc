// The action of `elenchos verify` without --verifier-only: run every task, then report.
import { mkdir, writeFile } from 'node:fs/promises';
import { InputError } from '../errors.js';
import path from 'node:path';
import { writeHuman, writeLine, type CliIO } from '../cli-io.js';
import type { RunReporter } from '../core/events.js';
import { verifyAll, type VerifiedTask } from '../core/verify-all.js';
import { parseShard } from '../core/select-tasks.js';
import { githubAnnotations, writeJobSummary } from '../reporters/github.js';
import { renderJunit } from '../reporters/junit.js';
import { terminalReporter } from '../reporters/terminal.js';
import { withInterrupts } from './interrupts.js';
import type { VerifyCommandOptions } from './verify-options.js';

/** Runs the tasks and writes the terminal summary, JSON, JUnit and GitHub outputs; returns the exit code. */
export async function verifyAllCommand(tasks: string[], options: VerifyCommandOptions, io: CliIO): Promise<number> {
  const shard = options.shard ? parseShard(options.shard) : undefined;
  const workers = options.workers ?? 1;
  const reporterFor = (file: string): RunReporter => {
    if (options.json) return { onEvent: () => undefined };
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
      signal,
      reporterFor,
    }),
  );
  if (options.json)
    writeLine(
      io.stdout,
      JSON.stringify(
        {
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

/** Writes a report file, creating its folder; a path that cannot be written is the user's to fix (exit 3). */
export async function writeReportFile(file: string, text: string): Promise<void> {
  try {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, text);
  } catch (error) {
    throw new InputError(
      `--junit ${file}: cannot write it (${(error as NodeJS.ErrnoException).code ?? String(error)}); choose a writable path`,
      { cause: error },
    );
  }
}

/** The closing table: one line per task with its verdict and criteria, under the command's own title. */
export function printSummary(io: CliIO, tasks: readonly VerifiedTask[], options: { title: string; shard: string | null }): void {
  const { title, shard } = options;
  writeHuman(io.stdout, `${title}: ${tasks.length} task(s)${shard ? ` (shard ${shard})` : ''}`);
  for (const t of tasks) {
    if (!t.record) {
      const [first, ...details] = (t.refused ?? '').split('\n');
      writeHuman(io.stdout, `  REFUSED   ${t.file}: ${first}`);
      // The details name what to fix (which criterion, which step, which commit): show them, within reason.
      for (const line of details.slice(0, 10)) writeHuman(io.stdout, `            ${line}`);
      if (details.length > 10) writeHuman(io.stdout, `            … and ${details.length - 10} more (--json has them all)`);
      continue;
    }
    const state = `${t.record.state}${t.record.reason ? ` ${t.record.reason}` : ''}`;
    const criteria = t.criteria.map((c) => `${c.id} ${c.status}`).join(', ');
    writeHuman(io.stdout, `  ${state.padEnd(28)} ${t.record.task.id.padEnd(20)} ${criteria}  (run ${t.record.runId})`);
    for (const reason of t.needsHuman?.reasons ?? []) writeHuman(io.stdout, `            NEEDS_HUMAN: ${reason}`);
  }
  const verified = tasks.filter((t) => t.record?.state === 'VERIFIED').length;
  writeHuman(io.stdout, `${verified}/${tasks.length} VERIFIED`);
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
