// Elenchos's progress reporter, loaded by Playwright's runner (never by Elenchos itself): numbers tests by
// file, line, column and project (the order declaredSteps follows) and prints one marked JSON line when
// each test begins and ends. The generated config names this compiled file by its path in dist/
// (../progress-reporter.ts); its Playwright types are `import type` only, so it loads with nothing but Node.
import { readSync } from 'node:fs';
import type { FullConfig, Reporter, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import { PROGRESS_MARK, START_GATE_ENV, type ProgressLine } from './progress-protocol.js';

/** Exit status of a runner stopped at the start gate: no test ran. */
const STOPPED_AT_GATE = 70;

/**
 * Started ahead of the app, the runner is held in onBegin (after the configs and the spec are loaded and
 * compiled, before any worker or browser starts) until Elenchos writes `go` on stdin. onBegin cannot wait
 * asynchronously (Playwright does not await it), hence the blocking read; an error there would only be
 * logged by Playwright and the tests would run, so a closed stdin ends the process instead.
 */
function waitForStart(): void {
  const chunk = Buffer.alloc(64);
  let text = '';
  while (!text.includes('\n')) {
    let n: number;
    try {
      n = readSync(0, chunk, 0, chunk.length, null);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') {
        // A non-blocking stdin with nothing yet: sleep 5 ms without spinning, then read again.
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
        continue;
      }
      n = 0;
    }
    if (n === 0) {
      process.stderr.write('elenchos: stopped before the app was ready; no test runs\n');
      process.exit(STOPPED_AT_GATE);
    }
    text += chunk.toString('utf8', 0, n);
  }
}

const projectOf = (test: TestCase): string => test.parent.project()?.name ?? '';
const fileOf = (test: TestCase): string => test.location.file;

export default class ElenchosProgress implements Reporter {
  private index = new Map<TestCase, number>();
  private heading = new Map<TestCase, string>();

  onBegin(config: FullConfig, suite: Suite): void {
    const projects = config.projects.map((p) => p.name);
    const byPosition = (a: TestCase, b: TestCase): number =>
      (fileOf(a) < fileOf(b) ? -1 : fileOf(a) > fileOf(b) ? 1 : 0) ||
      a.location.line - b.location.line ||
      a.location.column - b.location.column ||
      projects.indexOf(projectOf(a)) - projects.indexOf(projectOf(b));
    const tests = suite.allTests().slice().sort(byPosition);
    const multiProject = new Set(tests.map(projectOf)).size > 1;
    this.index = new Map(tests.map((test, i) => [test, i + 1]));
    this.heading = new Map(tests.map((test) => [test, headingOf(test, multiProject)]));
    if (process.env[START_GATE_ENV] === 'stdin') waitForStart();
  }

  onTestBegin(test: TestCase, result: TestResult): void {
    this.emit({ event: 'begin', index: this.index.get(test) ?? null, title: this.heading.get(test) ?? test.title, retry: result.retry });
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const title = this.heading.get(test) ?? test.title;
    this.emit({
      event: 'end',
      index: this.index.get(test) ?? null,
      title,
      retry: result.retry,
      status: result.status,
      durationMs: result.duration,
    });
  }

  printsToStdio(): boolean {
    return false;
  }

  private emit(line: ProgressLine): void {
    process.stdout.write(`${PROGRESS_MARK}${JSON.stringify(line)}\n`);
  }
}

/** `describe › … › title`, with `[project] ` first when the run has more than one project. */
function headingOf(test: TestCase, multiProject: boolean): string {
  const titles = [test.title];
  for (let s: Suite | undefined = test.parent; s && s.type === 'describe'; s = s.parent) if (s.title) titles.unshift(s.title);
  return (multiProject ? `[${projectOf(test)}] ` : '') + titles.join(' › ');
}
