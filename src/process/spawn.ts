// The one way Elenchos starts a child. execa runs it: timeout, abort, SIGTERM→SIGKILL escalation,
// stdin, piping its output into files byte for byte. This layer adds only what execa cannot do: the
// child's own process group, killed whole on every exit path; output tails and caps; a failed log
// write reported the moment it happens (output-files.ts); lines cut at a length cap (execa's line
// splitting holds a line whole, however long: one 50 MB line without a newline held over 100 MB).
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { execa } from 'execa';
import { LineSplitter } from '../util/ndjson-reader.js';
import { openOutputFiles } from './output-files.js';
import { OWNER_ENV, ownerTag } from './owner-tag.js';
import { trackGroup, terminateGroup } from './process-group.js';
import { currentRunScope } from './run-scope.js';

export interface SpawnOptions {
  cwd: string;
  /** The complete environment of the child (adapters build it explicitly). */
  env: NodeJS.ProcessEnv;
  /** Text written to stdin, then closed; stdin is closed at once when absent. */
  input?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Grace between SIGTERM and SIGKILL. */
  graceMs?: number;
  /** Log file for both streams, interleaved as written, byte for byte. */
  logFile?: string;
  /** Separate files for raw stdout / stderr (byte for byte). */
  stdoutFile?: string;
  stderrFile?: string;
  onStdoutLine?: (line: string) => void;
  onStderrLine?: (line: string) => void;
  /** Keep at most this many bytes of each stream in memory (the tail). */
  keepBytes?: number;
  /** Stop reading (and kill) after this many bytes of output in total; the files keep at most one chunk more. */
  maxOutputBytes?: number;
  /** Do not kill the group when the leader exits (a server we stop ourselves). */
  keepGroupOnExit?: boolean;
  /**
   * Started now, let go later: stdin stays open until `release()` writes `go` on it (the child waits
   * for that line itself), and `timeoutMs` and `durationMs` count from the release, not the start.
   */
  gated?: boolean;
}

export interface SpawnResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  outputCapped: boolean;
  /** Failure to start at all (ENOENT, EACCES). */
  spawnError: NodeJS.ErrnoException | null;
  stdoutTail: string;
  stderrTail: string;
  durationMs: number;
}

export interface RunningProcess {
  pid: number | undefined;
  /** Resolves when the leader has exited and the group has been dealt with. */
  done: Promise<SpawnResult>;
  /** Stops the whole group (SIGTERM, then SIGKILL after the grace period). */
  stop(): Promise<void>;
  /** A gated child (`gated`): writes `go` on its stdin and closes it, and starts the timeout. Once only. */
  release(): void;
}

/** How long pipes held open by a process outside the group may delay the result after the leader exits. */
const PIPE_RELEASE_MS = 2000;

/** Starts `command args` in a new process group and wires timeout, abort and logging. */
export function startProcess(command: string, args: readonly string[], options: SpawnOptions): RunningProcess {
  let started = Date.now();
  const graceMs = options.graceMs ?? 3000;
  const gated = options.gated === true;
  const files = openOutputFiles(options, currentRunScope());
  const owner = ownerTag();
  const child = execa(command, args, {
    cwd: options.cwd,
    // Whom it belongs to, inherited by all it starts: our watchdog and `gc` find it by this wherever it goes (owner-tag.ts).
    env: owner === null ? options.env : { ...options.env, [OWNER_ENV]: owner },
    extendEnv: false,
    // A group of its own, so that everything the child starts can be killed with it (process-group.ts).
    detached: true,
    ...(gated ? { stdin: 'pipe' as const } : options.input === undefined ? { stdin: 'ignore' as const } : { input: options.input }),
    stdout: ['pipe', ...files.stdout],
    stderr: ['pipe', ...files.stderr],
    buffer: false,
    reject: false,
    // A gated child's timeout starts at its release (below): execa's would count the wait at the gate.
    timeout: gated ? undefined : options.timeoutMs,
    cancelSignal: options.signal,
    forceKillAfterDelay: graceMs,
  });
  const pid = child.pid;
  if (pid !== undefined) trackGroup(pid);
  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    if (pid === undefined) return Promise.resolve();
    // execa's kill() (timeout, abort) reaches the leader alone; a server or browser it started must go too.
    stopping ??= terminateGroup(pid, graceMs);
    return stopping;
  };

  // A child that exits before its release (or never reads) makes the write fail: nothing to report.
  child.stdin?.on('error', () => undefined);
  let released = false;
  let gateTimedOut = false;
  let gateTimer: NodeJS.Timeout | undefined;
  const release = (): void => {
    if (!gated || released) return;
    released = true;
    started = Date.now();
    child.stdin?.end('go\n');
    if (options.timeoutMs !== undefined) {
      gateTimer = setTimeout(() => {
        gateTimedOut = true;
        void stop();
      }, options.timeoutMs);
    }
  };

  const keep = options.keepBytes ?? 64 * 1024;
  const tails = { stdout: new ByteTail(keep), stderr: new ByteTail(keep) };
  let total = 0;
  let outputCapped = false;
  // execa's maxBuffer needs the whole output in memory; a runaway is cut here from the byte count instead.
  const account = (tail: ByteTail) => (chunk: Buffer) => {
    if (outputCapped) return;
    total += chunk.length;
    tail.push(chunk);
    if (options.maxOutputBytes !== undefined && total > options.maxOutputBytes) {
      outputCapped = true;
      child.stdout?.destroy();
      child.stderr?.destroy();
      void stop();
    }
  };
  child.stdout?.on('data', account(tails.stdout));
  child.stderr?.on('data', account(tails.stderr));
  const lines = [forwardLines(child.stdout, options.onStdoutLine), forwardLines(child.stderr, options.onStderrLine)];

  let groupStop: Promise<void> = Promise.resolve();
  let pipesRelease: NodeJS.Timeout | undefined;
  child.once('exit', () => {
    clearTimeout(gateTimer);
    // Anything the leader left behind in its group goes with it, unless we manage the group ourselves.
    if (!options.keepGroupOnExit) groupStop = stop();
    // A process that left the group (setsid) may hold our pipes open: execa would wait for it forever.
    void groupStop.then(() => {
      pipesRelease = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
      }, PIPE_RELEASE_MS);
    });
  });

  const done = (async (): Promise<SpawnResult> => {
    // A failed write to an output file was reported by the file itself (output-files.ts), as it happened.
    const result = await child;
    await Promise.all([...lines, files.close()]);
    await groupStop;
    clearTimeout(pipesRelease);
    return {
      exitCode: result.exitCode ?? null,
      signal: (result.signal as NodeJS.Signals | undefined) ?? null,
      timedOut: result.timedOut || gateTimedOut,
      aborted: result.isCanceled,
      outputCapped,
      spawnError: pid === undefined ? ((result.cause ?? result) as NodeJS.ErrnoException) : null,
      stdoutTail: tails.stdout.text(),
      stderrTail: tails.stderr.text(),
      durationMs: Date.now() - started,
    };
  })();
  return { pid, done, stop, release };
}

/** Runs a command to completion (see startProcess). */
export function runProcess(command: string, args: readonly string[], options: SpawnOptions): Promise<SpawnResult> {
  return startProcess(command, args, options).done;
}

/**
 * Hands each line (decoded as UTF-8 here only: the files keep the bytes) to `onLine`, without its
 * newline or a CR before it. A line longer than the splitter's cap is delivered once, cut to exactly
 * the cap, and the rest of it is dropped as it streams in: memory stays bounded whatever the child prints.
 */
function forwardLines(stream: Readable | null, onLine: ((line: string) => void) | undefined): Promise<void> {
  if (!stream || !onLine) return Promise.resolve();
  const decoder = new StringDecoder('utf8');
  const splitter = new LineSplitter();
  const deliver = (line: string) => {
    try {
      onLine(line);
    } catch {
      // A broken listener must not break the process it listens to.
    }
  };
  stream.on('data', (chunk: Buffer) => splitter.push(decoder.write(chunk), deliver));
  // A last line without a newline counts only if the stream ended; one cut (output cap, pipes released) does not.
  stream.once('end', () => {
    splitter.push(decoder.end(), deliver);
    splitter.end(deliver);
  });
  return new Promise((resolve) => stream.once('close', resolve));
}

/** The last `limit` bytes of a stream, decoded only when asked for. */
class ByteTail {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.chunks.length > 1 && this.size - this.chunks[0]!.length >= this.limit) this.size -= this.chunks.shift()!.length;
  }

  text(): string {
    const all = Buffer.concat(this.chunks);
    return all.subarray(Math.max(0, all.length - this.limit)).toString('utf8');
  }
}
