// One line of `elenchos doctor`: what was checked, how it stands, and the fix when it is not well.

export type DoctorStatus = 'ok' | 'warn' | 'fail';

export interface DoctorCheck {
  /** What was checked: node, git, config, task, verifier, chromium, agent, port, app. */
  name: string;
  status: DoctorStatus;
  message: string;
  /** One sentence naming the fix; null when nothing is to be done. */
  fix: string | null;
  /** Extra lines (an app's log tail). */
  details: string[];
}

/** A check that holds. */
export function ok(name: string, message: string): DoctorCheck {
  return { name, status: 'ok', message, fix: null, details: [] };
}

/** A check that fails, with its fix. */
export function fail(name: string, message: string, fix: string, details: string[] = []): DoctorCheck {
  return { name, status: 'fail', message, fix, details };
}

/** Probably fine, but worth knowing; does not change the exit code. */
export function warn(name: string, message: string, fix: string): DoctorCheck {
  return { name, status: 'warn', message, fix, details: [] };
}

/**
 * A list of checks that hands each one to `onCheck` as it is added, so doctor prints a line per step as
 * it goes instead of everything at the end.
 */
export function streamedChecks(onCheck?: (check: DoctorCheck) => void): DoctorCheck[] {
  const checks: DoctorCheck[] = [];
  if (!onCheck) return checks;
  // Not enumerable: the list still compares and serialises as a plain array.
  Object.defineProperty(checks, 'push', {
    value: (...added: DoctorCheck[]): number => {
      for (const check of added) {
        Array.prototype.push.call(checks, check);
        onCheck(check);
      }
      return checks.length;
    },
  });
  return checks;
}
