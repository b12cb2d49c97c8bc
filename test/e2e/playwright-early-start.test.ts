// Playwright starts while the app starts (the runner loads and compiles, then waits before the first test
// until Elenchos lets it go), in a real Chromium: the app here becomes ready only once the runner is waiting,
// so a verify that started Playwright after the app could never finish. And the attack on it: an app that
// shows the early runner a weaker spec and puts the real one back before it is ready.
// @module-tag slow
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
import { spawnCli } from '../helpers/cli.js';
import { processesInside } from '../helpers/project.js';
import { attackProject } from '../helpers/playwright-attack.js';

const hasChromium = existsSync(process.env.ELENCHOS_BROWSER_PATH ?? '/usr/bin/chromium');

// Listens only once the runner of this run has printed its "Running N tests" line (Playwright's list
// reporter, in onBegin, just before Elenchos's gate: the spec is loaded and compiled, no test has started).
// It finds the line in the verifier's stdout.log, which Elenchos writes as the runner prints: a marker, not
// a clock. (That the runner then waits for its release is test/adapters/playwright-start-gate.test.ts.)
const appWaitingForRunner = (before = '', whenRunnerWaits = '') => `const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const port = Number(process.argv[process.argv.indexOf('--port') + 1]);
const page = readFileSync('page.html');
const log = path.join(process.cwd(), '..', '..', 'runs', path.basename(process.cwd()), 'attempts', '01', 'verifier', 'stdout.log');
${before}
const giveUp = setTimeout(() => process.exit(3), 60000);
const poll = setInterval(() => {
  if (!existsSync(log) || !readFileSync(log, 'utf8').includes('Running ')) return;
  clearInterval(poll);
  clearTimeout(giveUp);
  ${whenRunnerWaits}
  http.createServer((req, res) => res.end(page)).listen(port, '127.0.0.1');
}, 20);
`;

// The same titles and tags as the real spec, so the listing still agrees; neither test can fail.
const WEAK_SPEC = `import { test } from '@playwright/test';

test('lists the tasks @AC-001', async ({ page }) => {
  await page.goto('/');
});

test('clears the list @AC-002', async ({ page }) => {
  await page.goto('/');
});
`;

// The page lists the task; WORKING adds the Clear button the spec clicks (without it the honest verdict is
// AC-001 PASS, AC-002 FAIL, at the price of a locator timeout).
const WORKING_PAGE =
  "<h1>Tasks</h1>\n<ul><li>Buy milk</li></ul>\n<button onclick=\"document.querySelector('ul').innerHTML = ''\">Clear</button>\n";

// The app here waits for the runner's line in Elenchos's own evidence folder, which the app sandbox hides:
// attackProject runs without it (the window is what these cases are about). The cases run together: each
// checks, once it has finished, that nothing is left running in its own repository.
async function verify(context: TestContext, app: string, files: Record<string, string> = {}) {
  const root = attackProject('', { 'app.js': app, ...files });
  context.onTestFinished(() => expect(processesInside(root), `processes left in ${root}`).toEqual([]));
  const result = await spawnCli(['verify', 'tasks/clear-list.json'], root, {}, 120_000);
  const [run] = readdirSync(path.join(root, '.elenchos/runs'));
  const dir = path.join(root, '.elenchos/runs', run!);
  const record = JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8'));
  return { root, dir, record, output: result.stdout + result.stderr };
}

describe.runIf(hasChromium).concurrent('Playwright started while the app starts, in a real browser', { timeout: 150_000 }, () => {
  it('the runner loads and compiles the spec before the app is ready, and the tests run once it is', async (context) => {
    const { dir, record, output } = await verify(context, appWaitingForRunner(), { 'page.html': WORKING_PAGE });
    // Ready at all means the runner had loaded and compiled the spec before the app was up; both tests
    // passing (each opens the page first) means they ran once it listened.
    expect(record.state, output).toBe('VERIFIED');
    expect(Object.fromEntries(record.attempts[0].criteria.map((c: any) => [c.id, c.status]))).toEqual({
      'AC-001': 'PASS',
      'AC-002': 'PASS',
    });
    expect(output).toContain('playwright getting ready while the app starts');
    // The verifier's time is counted from the release, not from the start of the runner.
    const attempt = JSON.parse(readFileSync(path.join(dir, 'attempts/01/attempt.json'), 'utf8'));
    expect(attempt.verifier.durationMs).toBeLessThan(attempt.durationMs);
  });

  it('an app that shows the waiting runner a weaker spec and puts the real one back is never VERIFIED', async (context) => {
    const swap = `const spec = path.join('tests', 'clear-list.spec.ts');
const real = readFileSync(spec);
writeFileSync(spec, ${JSON.stringify(WEAK_SPEC)});`;
    const { record, output } = await verify(context, appWaitingForRunner(swap, 'writeFileSync(spec, real);'));
    expect(record.state, output).not.toBe('VERIFIED');
    expect(record).toMatchObject({ state: 'ERROR', reason: 'CONTRACT_CHANGED' });
    expect(output).toContain('the contract was rewritten while the verifier read it: tests/clear-list.spec.ts');
  });

  it('an app that never gets ready: the waiting runner is stopped, and no browser ever starts', async (context) => {
    // (Elenchos then starts the app of the base commit to see whose fault it is: there is no runner log
    // there, and it exits at once.)
    const { dir, record, output } = await verify(
      context,
      appWaitingForRunner('if (!existsSync(log)) process.exit(5);', "process.stderr.write('giving up\\n'); process.exit(4);"),
    );
    const attempt = JSON.parse(readFileSync(path.join(dir, 'attempts/01/attempt.json'), 'utf8'));
    expect(attempt.app, output).toMatchObject({ ok: false, exitCode: 4 });
    expect(record.state).toBe('ERROR');
    const stdout = readFileSync(path.join(dir, 'attempts/01/verifier/stdout.log'), 'utf8');
    expect(stdout).toContain('Running 2 tests');
    expect(stdout).not.toMatch(/✓|✘|passed|failed/);
    expect(existsSync(path.join(dir, 'attempts/01/verifier/report.json'))).toBe(false);
  });
});
