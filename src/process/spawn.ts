// The one way Elenchos starts a child: its own process group, a timeout, an abort signal,
// output streamed line by line to a log and a listener, and the whole group killed on every exit path.
import { spawn } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { trackGroup, terminateGroup } from './process-group.js';

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
  /** Log file for both streams, each line prefixed with `[stdout]`/`[stderr]`-free raw text. */
  logFile?: string;
  /** Separate files for raw stdout / stderr (byte for byte). */
  stdoutFile?: string;
  stderrFile?: string;
  onStdoutLine?: (line: string) => void;
  onStderrLine?: (line: string) => void;
  /** Keep at most this many bytes of each stream in memory (the tail). */
  keepBytes?: number;
  /** Stop reading (and kill) after this many bytes of output in total. */
  maxOutputBytes?: number;
  /** Do not kill the group when the leader exits (a server we stop ourselves). */
  keepGroupOnExit?: boolean;
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
}

/** Starts `command args` in a new process group and wires timeout, abort and logging. */
export function startProcess(command: string, args: readonly string[], options: SpawnOptions): RunningProcess {
  const started = Date.now();
  const keep = options.keepBytes ?? 64 * 1024;
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  if (pid !== undefined) trackGroup(pid);
  const log = options.logFile ? createWriteStream(options.logFile, { flags: 'a' }) : null;
  const rawOut = options.stdoutFile ? createWriteStream(options.stdoutFile, { flags: 'a' }) : null;
  const rawErr = options.stderrFile ? createWriteStream(options.stderrFile, { flags: 'a' }) : null;
  let timedOut = false;
  let aborted = false;
  let outputCapped = false;
  let total = 0;
  let spawnError: NodeJS.ErrnoException | null = null;
  const tails = { stdout: '', stderr: '' };
  let stopping: Promise<void> | null = null;

  const stop = (): Promise<void> => {
    if (pid === undefined) return Promise.resolve();
    stopping ??= terminateGroup(pid, options.graceMs ?? 3000);
    return stopping;
  };

  const wire = (stream: NodeJS.ReadableStream, name: 'stdout' | 'stderr', raw: WriteStream | null, onLine?: (line: string) => void) => {
    let partial = '';
    stream.setEncoding?.('utf8');
    stream.on('data', (chunk: string) => {
      total += Buffer.byteLength(chunk);
      if (options.maxOutputBytes !== undefined && total > options.maxOutputBytes) {
        if (!outputCapped) {
          outputCapped = true;
          void stop();
        }
        return;
      }
      raw?.write(chunk);
      log?.write(chunk);
      tails[name] = (tails[name] + chunk).slice(-keep);
      if (!onLine) return;
      partial += chunk;
      let newline = partial.indexOf('\n');
      while (newline >= 0) {
        safeCall(onLine, partial.slice(0, newline).replace(/\r$/, ''));
        partial = partial.slice(newline + 1);
        newline = partial.indexOf('\n');
      }
    });
    stream.on('end', () => {
      if (onLine && partial !== '') safeCall(onLine, partial.replace(/\r$/, ''));
      partial = '';
    });
  };
  if (child.stdout) wire(child.stdout, 'stdout', rawOut, options.onStdoutLine);
  if (child.stderr) wire(child.stderr, 'stderr', rawErr, options.onStderrLine);
  if (options.input !== undefined && child.stdin) {
    child.stdin.on('error', () => undefined); // a child that never reads its stdin is not our failure
    child.stdin.end(options.input);
  }

  const timer =
    options.timeoutMs !== undefined
      ? setTimeout(() => {
          timedOut = true;
          void stop();
        }, options.timeoutMs)
      : null;
  const onAbort = () => {
    aborted = true;
    void stop();
  };
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });

  const done = new Promise<SpawnResult>((resolve) => {
    let settled = false;
    let exited = false;
    const finish = async (exitCode: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      // Anything the leader left behind in its group goes with it, unless we manage the group ourselves.
      if (pid !== undefined && !options.keepGroupOnExit) await stop();
      // A process outside the group may still hold our pipes open: give them a moment, then let go.
      await waitForClose(child, 2000);
      await Promise.all([closeStream(log), closeStream(rawOut), closeStream(rawErr)]);
      resolve({
        exitCode,
        signal,
        timedOut,
        aborted,
        outputCapped,
        spawnError,
        stdoutTail: tails.stdout,
        stderrTail: tails.stderr,
        durationMs: Date.now() - started,
      });
    };
    child.on('error', (error: NodeJS.ErrnoException) => {
      spawnError = error;
      if (pid === undefined || !exited) void finish(null, null);
    });
    child.on('exit', (code, signal) => {
      exited = true;
      void finish(code, signal);
    });
  });

  return { pid, done, stop };
}

/** Runs a command to completion (see startProcess). */
export function runProcess(command: string, args: readonly string[], options: SpawnOptions): Promise<SpawnResult> {
  return startProcess(command, args, options).done;
}

function waitForClose(child: ReturnType<typeof spawn>, ms: number): Promise<void> {
  if (child.stdout?.readableEnded !== false && child.stderr?.readableEnded !== false) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.stdout?.destroy();
      child.stderr?.destroy();
      resolve();
    }, ms);
    child.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function closeStream(stream: WriteStream | null): Promise<void> {
  return new Promise((resolve) => (stream ? stream.end(() => resolve()) : resolve()));
}

function safeCall(fn: (line: string) => void, line: string): void {
  try {
    fn(line);
  } catch {
    // A broken listener must not break the process it listens to.
  }
}
