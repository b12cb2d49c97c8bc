// `verifier.args` that would let a Playwright verify pass without the test passing: each one narrows
// what runs or what is asserted, or writes the baseline the test compares against. The flags are
// @playwright/test's (`testOptions` in playwright/lib/program.js, 1.58.2 and 1.65.2 alike); commander
// parses them, so `--flag=value`, `--flag value` and clustered short flags (`-xu`) all count.
import { PreflightError } from '../../errors.js';
import { commandWords } from '../../process/command-string.js';

interface Weakening {
  /** The flag as the user wrote it (the token). */
  flag: string;
  why: string;
}

const WHY: Record<string, string> = {
  '--last-failed': 'it runs only the tests that failed last time, so the rest are never verified',
  '--only-changed': 'it runs only the spec files git sees as changed, so an unchanged spec is never verified',
  '--pass-with-no-tests': 'a run that found no test would pass',
  '--grep-invert': 'it leaves out the tests it matches, chosen by configuration rather than by the task',
  '--test-list-invert': 'it leaves out the tests a file lists, chosen by configuration rather than by the task',
  '--ignore-snapshots': 'it skips every toHaveScreenshot/toMatchSnapshot assertion',
  '--update-snapshots':
    'it writes the snapshot baselines the test compares against during the verdict (a missing or changed picture would pass); only --update-snapshots=none is accepted',
};

/** Short flags of `playwright test` and what they stand for; those taking a value end a cluster (`-gfoo`). */
const SHORT: Record<string, { long: string; value: 'required' | 'optional' | 'none' }> = {
  c: { long: '--config', value: 'required' },
  g: { long: '--grep', value: 'required' },
  G: { long: '--grep-invert', value: 'required' },
  j: { long: '--workers', value: 'required' },
  u: { long: '--update-snapshots', value: 'optional' },
  x: { long: '-x', value: 'none' },
};

/** The first argument that would weaken the verify, or null. Every token is read, even one that is a value. */
export function weakeningArg(args: readonly string[]): Weakening | null {
  for (let i = 0; i < args.length; i++) {
    const token = args[i]!;
    const next = args[i + 1];
    if (token.startsWith('--')) {
      const eq = token.indexOf('=');
      const name = eq < 0 ? token : token.slice(0, eq);
      if (name === '--update-snapshots') {
        const mode = eq >= 0 ? token.slice(eq + 1) : next !== undefined && !next.startsWith('-') ? next : 'changed';
        if (mode !== 'none') return { flag: token, why: WHY[name]! };
      } else if (WHY[name]) {
        return { flag: token, why: WHY[name] };
      }
    } else if (token.startsWith('-') && token.length > 1) {
      // A cluster: boolean flags in a row, ended by one that takes the rest (or the next token) as its value.
      for (let at = 1; at < token.length; at++) {
        const short = SHORT[token[at]!];
        if (!short) break;
        if (short.long === '--update-snapshots') {
          const rest = token.slice(at + 1);
          const mode = rest !== '' ? rest : next !== undefined && !next.startsWith('-') ? next : 'changed';
          if (mode !== 'none') return { flag: token, why: WHY['--update-snapshots']! };
          break;
        }
        if (WHY[short.long]) return { flag: token, why: WHY[short.long]! };
        if (short.value !== 'none') break;
      }
    }
  }
  return null;
}

/**
 * The one-line refusal (exit 3) for the Playwright verifier's `verifier.args`, or null when they are fine.
 * `verifier.command` is split into words (quotes as a shell reads them) and its words go before `test` (`playwright test --last-failed`
 * as a command would pass the flag too), so they are read the same way.
 */
export function weakeningArgProblem(args: readonly string[], configLabel: string, command?: string): string | null {
  const words = command === undefined ? [] : commandWords(command).slice(1);
  for (const [key, list] of [
    ['verifier.args', args],
    ['verifier.command', words],
  ] as const) {
    const found = weakeningArg(list);
    if (found)
      return `${configLabel}: ${key} "${found.flag}" is refused: ${found.why}; remove it (the verdict runs every test of the spec as written)`;
  }
  return null;
}

/** Throws the refusal when the task is verified by Playwright with such `verifier.args` (or `verifier.command`). */
export function refuseWeakeningArgs(
  verifierType: string,
  invocation: { args: readonly string[]; command?: string | undefined },
  configLabel: string,
): void {
  if (verifierType !== 'playwright') return;
  const problem = weakeningArgProblem(invocation.args, configLabel, invocation.command);
  if (problem) throw new PreflightError('VERIFIER_ARGS_WEAKEN', problem);
}
