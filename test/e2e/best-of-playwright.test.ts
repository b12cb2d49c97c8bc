// Best of N with the Playwright verifier in a real Chromium: two candidates at once, each with its own
// app on its own port and its own browser; the one right the first time wins over the one that repaired.
// @module-tag slow
import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { FAKE_AGENT, FIXTURES, onlyRun, processesInside } from '../helpers/project.js';
import { CLEAR_SPEC, CLEAR_TASK } from '../helpers/playwright-attack.js';
import { tempRepo } from '../helpers/temp.js';
import { leakedWorktrees } from '../helpers/worktrees.js';
import { REPO_ROOT } from '../fixtures/playwright/verify-context.js';

const hasChromium = existsSync(process.env.ELENCHOS_BROWSER_PATH ?? '/usr/bin/chromium');

let roots: string[] = [];
afterEach(() => {
  for (const root of roots) expect(processesInside(root), `processes left in ${root}`).toEqual([]);
  roots = [];
});

describe.runIf(hasChromium)('best of N, Playwright in a real browser', { timeout: 300_000 }, () => {
  it('two candidates in parallel: both VERIFIED, the one with fewer attempts wins, each verified against its own app', () => {
    const agent = (behaviour: string) => ({
      type: 'command',
      command: process.execPath,
      args: [FAKE_AGENT, behaviour],
      timeoutSeconds: 30,
      // In this checkout, maybe under /tmp, which the sandbox's own /tmp hides (best-of-sandbox.test.ts has the sandbox).
      sandbox: 'none',
    });
    const config = {
      agents: { forgetful: agent('forget-button'), direct: agent('clear-button') },
      app: { command: 'node app.js --port {port}', readyTimeoutSeconds: 20 },
      verifier: { type: 'playwright', timeoutSeconds: 120, args: ['--retries=0', '--timeout=10000'] },
      maxRepairAttempts: 1,
      maxVerifierRetries: 0,
    };
    const root = tempRepo({
      '.gitignore': 'node_modules\n',
      'app.js': readFileSync(path.join(FIXTURES, 'apps/tiny-app.js'), 'utf8'),
      'page.html': '<h1>Tasks</h1>\n',
      'tasks/clear-list.json': CLEAR_TASK,
      'tests/clear-list.spec.ts': CLEAR_SPEC,
      'elenchos.config.json': `${JSON.stringify(config, null, 2)}\n`,
    });
    symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(root, 'node_modules'), 'dir');
    roots.push(root);
    const result = spawnSync(process.execPath, [BIN, 'run', 'tasks/clear-list.json', '--agents', 'forgetful,direct', '--parallel', '2'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 280_000,
    });
    expect(result.status, result.stdout + result.stderr).toBe(0);
    const { dir, record } = onlyRun(root);
    expect(record.state).toBe('VERIFIED');
    expect(record.bestOf).toEqual({ parallel: 2, stopAtFirst: false });
    expect(record.candidates.map((c: any) => [c.name, c.state, c.attempts])).toEqual([
      ['forgetful', 'VERIFIED', 2],
      ['direct', 'VERIFIED', 1],
    ]);
    expect(record.winner).toEqual({
      name: 'direct',
      reason: '2 VERIFIED; fewest attempts: 1 attempt(s), the next best (forgetful) 2 attempt(s)',
    });
    // They ran at the same time: each started before the other finished.
    const [a, b] = record.candidates;
    expect(Date.parse(a.startedAt)).toBeLessThan(Date.parse(b.finishedAt));
    expect(Date.parse(b.startedAt)).toBeLessThan(Date.parse(a.finishedAt));
    // Each candidate's browser went to its own app: two different ports.
    const urls = record.candidates.map((c: any) => {
      const attempt = JSON.parse(readFileSync(path.join(dir, c.dir, 'attempts/01/attempt.json'), 'utf8'));
      return attempt.app.url as string;
    });
    expect(urls[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(urls[0]).not.toBe(urls[1]);
    const forgetful = JSON.parse(readFileSync(path.join(dir, 'candidates/forgetful/attempts/01/attempt.json'), 'utf8'));
    expect(forgetful.findings[0]).toMatchObject({ kind: 'product_failure', locator: "getByRole('button', { name: 'Clear' })" });
    expect(leakedWorktrees(root)).toEqual([]);
  });
});
