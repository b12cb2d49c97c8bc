// What can end a run from outside its steps: the caller's signal (Ctrl-C) and a full disk, behind one
// AbortSignal; what each of them makes of the outcome at sealing time is decided in decide.ts.
import path from 'node:path';
import { isDiskFull, type RunScope } from '../../process/run-scope.js';
import type { Terminal } from './run-context.js';
import { sealedOutcome } from './decide.js';

/** One run's abort and faults; `scope` is what the process layer reports child starts and write failures to. */
export class RunGuard {
  private readonly controller = new AbortController();
  /** Set by the first evidence write that failed for lack of space; the run stops and ends ERROR DISK_FULL. */
  diskFull: string | null = null;
  readonly scope: RunScope;
  private readonly onAbort = () => this.controller.abort();

  constructor(
    private readonly userSignal: AbortSignal,
    root: string,
    childLog: string,
    /** A best-of candidate: why its run stopped it (--stop-at-first), null when it did not (Ctrl-C is not a stop). */
    private readonly stopReason: () => string | null = () => null,
  ) {
    if (userSignal.aborted) this.onAbort();
    else userSignal.addEventListener('abort', this.onAbort, { once: true });
    this.scope = {
      childLog,
      onWriteError: (error, file) => {
        if (!isDiskFull(error) || this.diskFull) return;
        this.diskFull = `no space left on the device (${error.code}) while writing ${path.relative(root, file) || file}`;
        this.controller.abort();
      },
    };
  }

  /** Aborts on Ctrl-C or on a fault: every child of the run listens to it. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** True once the caller interrupted (not a fault of ours). */
  get interrupted(): boolean {
    return this.userSignal.aborted;
  }

  /** The outcome to seal, asked at sealing time (decide.ts sealedOutcome). */
  sealedOutcome(decided: Terminal): Terminal {
    const interrupted = this.interrupted;
    return sealedOutcome(decided, { diskFull: this.diskFull, interrupted, stopped: interrupted ? this.stopReason() : null });
  }

  /** Stops listening to the caller's signal. */
  dispose(): void {
    this.userSignal.removeEventListener('abort', this.onAbort);
  }
}
