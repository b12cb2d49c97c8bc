// The streams a command writes to; injectable so tests can capture output.
import { escapeControls, showText } from './util/show-text.js';

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
  ignoreClosedPipe(process.stdout);
  ignoreClosedPipe(process.stderr);
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    isTTY: Boolean(process.stdout.isTTY),
  };
}

/** Writes one line (or an intended block of lines); other control characters are escaped (see escapeControls). */
export function writeLine(stream: NodeJS.WritableStream, line = ''): void {
  stream.write(`${escapeControls(line)}\n`);
}

/** Writes one line of human output built from untrusted text: control characters and newlines escaped, long text cut. */
export function writeHuman(stream: NodeJS.WritableStream, line = ''): void {
  stream.write(`${showText(line)}\n`);
}

const guarded = new WeakSet<NodeJS.WritableStream>();

/**
 * `elenchos runs | head -1`: the reader has gone, which is no error of ours. Later writes are
 * dropped and the command finishes normally, so a run piped into `head` still stops its children
 * and seals its evidence instead of dying half way with a stack trace.
 */
export function ignoreClosedPipe(stream: NodeJS.WritableStream): void {
  if (guarded.has(stream)) return;
  guarded.add(stream);
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') return;
    throw error;
  });
}
