// The files a child's output is copied into, byte for byte. We open them ourselves rather than hand
// execa `{ file }` targets: execa keeps a failed write (ENOSPC) to itself until the child exits, while
// the run must hear of a full disk at once to stop every child (run-guard.ts). execa still does the piping.
import { createWriteStream, type WriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import { reportWriteError, type RunScope } from './run-scope.js';

export interface OutputFiles {
  /** Where stdout goes (its own file and the shared log), as execa stdout targets. */
  stdout: WriteStream[];
  stderr: WriteStream[];
  /** Resolves once every file is flushed and closed (or failed); ends a file execa never ended (start failure). */
  close(): Promise<void>;
}

export interface OutputFileNames {
  /** Both streams, interleaved as they arrive. */
  logFile?: string;
  stdoutFile?: string;
  stderrFile?: string;
}

/** Opens the output files for appending; a failed write is reported to `scope` the moment it happens. */
export function openOutputFiles(names: OutputFileNames, scope: RunScope | null): OutputFiles {
  const open = (file: string | undefined): WriteStream[] => {
    if (file === undefined) return [];
    const stream = createWriteStream(file, { flags: 'a' });
    // The listener is also what keeps an ENOSPC from being an unhandled 'error' event.
    stream.on('error', (error: NodeJS.ErrnoException) => reportWriteError(error, file, scope));
    return [stream];
  };
  // One stream for the shared log, so that execa merges stdout and stderr into it in arrival order.
  const log = open(names.logFile);
  const stdout = [...open(names.stdoutFile), ...log];
  const stderr = [...open(names.stderrFile), ...log];
  const all = [...new Set([...stdout, ...stderr])];
  return {
    stdout,
    stderr,
    close: async () => {
      for (const stream of all) if (!stream.writableEnded && !stream.destroyed) stream.end();
      await Promise.all(all.map((stream) => finished(stream).catch(() => undefined)));
    },
  };
}
