// The streams a command writes to; injectable so tests can capture output.

export interface CliIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** True when stdout is a terminal (colour, live progress). */
  isTTY: boolean;
}

/** The process's own streams. */
export function processIO(): CliIO {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    isTTY: Boolean(process.stdout.isTTY),
  };
}

/** Writes one line. */
export function writeLine(stream: NodeJS.WritableStream, line = ''): void {
  stream.write(`${line}\n`);
}
