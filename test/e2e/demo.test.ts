// The README's demo, end to end: a real Chromium through Playwright, the scripted agent, one repair.
// @module-tag slow
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { processesInside } from '../helpers/project.js';
import { tempDir } from '../helpers/temp.js';

const DEMO = fileURLToPath(new URL('../../scripts/demo.js', import.meta.url));

describe('npm run demo', { timeout: 240_000 }, () => {
  it('takes priority-badge to VERIFIED after exactly one repair, in a real browser', () => {
    const dir = tempDir('elenchos-demo-test-');
    const result = spawnSync(process.execPath, [DEMO, '--json', '--quiet', '--dir', dir], { encoding: 'utf8', timeout: 230_000 });
    expect(result.status, result.stderr.slice(-3000)).toBe(0);
    const record = JSON.parse(result.stdout);
    expect(record).toMatchObject({ mode: 'run', state: 'VERIFIED', reason: null, task: { id: 'priority-badge' } });
    const byId = (attempt: any) => Object.fromEntries(attempt.criteria.map((c: any) => [c.id, c.status]));
    expect(record.attempts.map((a: any) => [a.kind, a.status])).toEqual([
      ['agent', 'FAIL'],
      ['agent', 'PASS'],
    ]);
    expect(byId(record.attempts[0])).toEqual({ 'AC-001': 'PASS', 'AC-002': 'PASS', 'AC-003': 'FAIL' });
    expect(byId(record.attempts[1])).toEqual({ 'AC-001': 'PASS', 'AC-002': 'PASS', 'AC-003': 'PASS' });
    expect(record.tools.verifier).toMatch(/^\d+\.\d+/);
    expect(processesInside(dir)).toEqual([]);
    // The README's tour commands find the evidence only in the demo's repository: the demo says so.
    expect(result.stderr).toContain(`  cd ${dir}\n  alias elenchos='node `);
    expect(result.stderr).toContain(`  elenchos show ${record.runId}\n`);
  });

  it('says how to get a Chromium and exits 1 when there is none (a hang would hit the spawn timeout: status null)', () => {
    const dir = tempDir('elenchos-demo-test-');
    const result = spawnSync(process.execPath, [DEMO, '--dir', dir], {
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, ELENCHOS_BROWSER_PATH: '/nonexistent/chromium' },
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('demo: no Chromium found');
    expect(result.stderr).toContain('sudo apt-get install chromium');
    expect(result.stderr).toContain('npx playwright install chromium');
  });
});
