// Ctrl-C: the first SIGINT/SIGTERM/SIGHUP stops children gracefully through the run's AbortSignal; a second kills at once.
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
      writeLine(io.stderr, `\nelenchos: ${signal} received: stopping children and recording the run as interrupted (again to kill at once)`);
      controller.abort();
      return;
    }
    writeLine(io.stderr, 'elenchos: killing every child process group now');
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
