// Ctrl-C: the first SIGINT/SIGTERM/SIGHUP stops children gracefully through the run's AbortSignal; a second
// kills every child group at once and lets the run seal its record; a third exits at once (gc finishes the rest).
import { writeLine, type CliIO } from '../cli-io.js';
import { killAllGroups } from '../process/process-group.js';

const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** Runs `work` with an AbortSignal tied to SIGINT/SIGTERM, removing the handlers afterwards. */
export async function withInterrupts<T>(io: CliIO, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let count = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    count++;
    if (count === 1) {
      writeLine(
        io.stderr,
        `\nelenchos: ${signal} received: stopping children and recording the run as interrupted (again to kill at once)`,
      );
      controller.abort();
      return;
    }
    if (count === 2) {
      // Exiting here would leave a RUNNING record and the worktree behind: kill the children instead,
      // which lets the teardown and the sealing (local file work) finish in a moment.
      writeLine(io.stderr, 'elenchos: killing every child process group now; sealing the record (a third signal exits without it)');
      killAllGroups();
      return;
    }
    writeLine(io.stderr, 'elenchos: exiting now; the run stays RUNNING until `elenchos gc` stops what is left and marks it ABANDONED');
    killAllGroups();
    process.exit(130);
  };
  // SIGHUP too: children live in their own process groups, so a closed terminal would orphan them.
  for (const signal of SIGNALS) process.on(signal, onSignal);
  try {
    return await work(controller.signal);
  } finally {
    for (const signal of SIGNALS) process.off(signal, onSignal);
  }
}
