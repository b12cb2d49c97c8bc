// What the progress reporter (progress-reporter.ts, in Playwright's runner) and Elenchos (run-playwright.ts)
// agree on: the mark of its stdout lines, and the variable that holds the runner at the start gate.

/** Lines the progress reporter prints on stdout start with this. */
export const PROGRESS_MARK = '@@elenchos-progress ';

/** `stdin` when the runner was started ahead of the app and must wait for `go` on stdin before any test. */
export const START_GATE_ENV = 'ELENCHOS_START_GATE';

/** One progress line after the mark: a test began or ended (`index` numbers the tests as the listing does). */
export type ProgressLine =
  | { event: 'begin'; index: number | null; title: string; retry: number }
  | { event: 'end'; index: number | null; title: string; retry: number; status: string; durationMs: number };
