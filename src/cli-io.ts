// What a command reads and writes: its streams, environment and working folder. The CLI's entry (main)
// takes them from its caller; only processIO reads the process's own, so the CLI can run in-process
// with another environment, folder and streams, and nothing below it reads process.env or process.cwd().

export interface CliIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** What `init` asks on and `mcp` serves on. */
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
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
    stdin: process.stdin,
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

// Untrusted text (titles, descriptions, agent and app output, file names) made safe for a terminal line.
/** Longest line of human output; the rest is cut and counted, so a 10 MB title cannot flood a CI log. */
export const MAX_SHOWN_LENGTH = 2000;

// C0 controls but the newline, DEL, C1 controls (0x9b is a one-byte CSI for some terminals), and the
// bidirectional overrides that can make a line read differently from what it is ("Trojan Source").
// Matching control characters is the point of these two patterns.
/* eslint-disable no-control-regex */
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_OR_NEWLINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/* eslint-enable no-control-regex */
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

const escapeChar = (ch: string): string => NAMED[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * Escapes every control character except the newline as `\uXXXX`, which is also how JSON writes it,
 * so text that is already JSON keeps its meaning. Used for every line Elenchos prints.
 */
export function escapeControls(text: string): string {
  return text.replace(UNSAFE, escapeChar);
}

/** One line of human output: every control character escaped (newlines too) and cut at `max` characters. */
export function showText(text: string, max = MAX_SHOWN_LENGTH): string {
  const cut = text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;
  return cut.replace(UNSAFE_OR_NEWLINE, escapeChar);
}
