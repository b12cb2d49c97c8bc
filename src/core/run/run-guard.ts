// What can end a run from outside its steps: the caller's signal (Ctrl-C) and a full disk, behind one
// AbortSignal; and what each of them makes of the outcome at sealing time.
import path from 'node:path';
import { isDiskFull, type RunScope } from '../../process/run-scope.js';
import type { Terminal } from './run-context.js';

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

  /**
   * The outcome to seal, asked at sealing time: a full disk, or a signal that came after the verdict,
   * is never sealed as the verdict (nor exits 0). A best-of candidate stopped because another was
   * VERIFIED first is sealed ERROR STOPPED, unless it had reached VERIFIED itself: that verdict stands.
   */
  sealedOutcome(decided: Terminal): Terminal {
    if (this.diskFull) return decided.reason === 'DISK_FULL' ? decided : diskFullTerminal(this.diskFull);
    const stopped = this.interrupted ? this.stopReason() : null;
    if (stopped !== null) return decided.state === 'VERIFIED' ? decided : { state: 'ERROR', reason: 'STOPPED', message: stopped };
    if (this.interrupted && decided.reason !== 'INTERRUPTED') {
      const was = `${decided.state}${decided.reason ? ` ${decided.reason}` : ''}`;
      return {
        state: 'ERROR',
        reason: 'INTERRUPTED',
        message: `interrupted after the run had ended ${was}, before its evidence was sealed`,
      };
    }
    return decided;
  }

  /** Stops listening to the caller's signal. */
  dispose(): void {
    this.userSignal.removeEventListener('abort', this.onAbort);
  }
}

/** ERROR DISK_FULL, saying which write failed. */
export function diskFullTerminal(why: string): Terminal {
  return { state: 'ERROR', reason: 'DISK_FULL', message: `${why}: every child was stopped; free some space and run again` };
}
