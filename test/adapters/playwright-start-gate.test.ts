// The gate of a Playwright runner started ahead of the app: Elenchos's progress reporter holds the runner in
// onBegin (after the spec is loaded and compiled, before any worker or test) until `go` arrives on stdin, and
// ends the process when stdin closes without it. Run here as Playwright's runner would call it, in a child
// whose stdin is ours; what the child prints after onBegin returns shows whether it waited.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROGRESS_REPORTER } from '../../src/verifiers/playwright/progress-reporter.js';
import { START_GATE_ENV } from '../../src/verifiers/playwright/reporter/progress-protocol.js';
import { tempDir } from '../helpers/temp.js';

/** A child that loads the reporter, prints `begin`, calls onBegin, prints `after`; `feed` gets its stdin. */
function runOnBegin(gate: string, feed: (stdin: NodeJS.WritableStream, stdout: () => string) => void) {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'progress-reporter.mjs'), PROGRESS_REPORTER);
  const main = `import Reporter from './progress-reporter.mjs';
process.stdout.write('begin\\n');
new Reporter().onBegin({ projects: [] }, { allTests: () => [] });
process.stdout.write('after\\n');`;
  writeFileSync(path.join(dir, 'main.mjs'), main);
  const child = spawn(process.execPath, ['main.mjs'], { cwd: dir, env: { PATH: process.env.PATH, [START_GATE_ENV]: gate } });
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.startsWith('begin\n')) feed(child.stdin, () => out);
    });
    child.once('close', (code) => resolve({ code, out, err }));
  });
}

describe('the start gate in the progress reporter', () => {
  it('waits in onBegin until `go`, then lets the run go on', async () => {
    let fed = false;
    const result = await runOnBegin('stdin', (stdin) => {
      if (fed) return;
      fed = true;
      stdin.end('go\n');
    });
    expect(result).toMatchObject({ code: 0, out: 'begin\nafter\n' });
  });

  it('stdin closed without `go` (Elenchos stopped it): the process ends in onBegin, no test would run', async () => {
    // A reporter that did not wait would go on and print `after` whatever came on stdin.
    const result = await runOnBegin('stdin', (stdin) => stdin.end());
    expect(result.code).toBe(70);
    expect(result.out).toBe('begin\n');
    expect(result.err).toContain('stopped before the app was ready');
  });

  it('not gated (an empty value, as Elenchos sets it for every other run): onBegin returns at once', async () => {
    const result = await runOnBegin('', () => undefined);
    expect(result).toMatchObject({ code: 0, out: 'begin\nafter\n' });
  });
});
