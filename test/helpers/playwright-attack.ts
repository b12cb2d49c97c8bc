// A real project for attacks on the Playwright verifier: a tiny HTTP app whose page lacks the Clear button
// the spec clicks (so the honest verdict is FAIL of AC-002), node_modules linked, and a command agent that
// runs `agentSource` (CommonJS, in its worktree) instead of doing the work.
import { readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { BIN, spawnCli } from './cli.js';
import { tempDir, tempRepo } from './temp.js';
import { REPO_ROOT } from '../fixtures/playwright/verify-context.js';

export const CLEAR_SPEC = `import { expect, test } from '@playwright/test';

test('lists the tasks @AC-001', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('listitem')).toHaveText(['Buy milk']);
});

test('clears the list @AC-002', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Clear' }).click();
  await expect(page.getByRole('listitem')).toHaveCount(0);
});
`;

/** The task the spec verifies: AC-001 the list shows the tasks, AC-002 Clear empties it. */
export const CLEAR_TASK = `${JSON.stringify(
  {
    id: 'clear-list',
    title: 'Clear the list',
    description: 'A Clear button empties the task list.',
    acceptanceCriteria: [
      { id: 'AC-001', description: 'the list shows the tasks' },
      { id: 'AC-002', description: 'Clear empties the list' },
    ],
    verification: { testFile: 'tests/clear-list.spec.ts' },
  },
  null,
  2,
)}\n`;

/** The project's root; `files` are committed beside the app, the task and the spec; `agent` settings override the agent's. */
export function attackProject(
  agentSource: string,
  files: Record<string, string> = {},
  agentSettings: Record<string, unknown> = {},
): string {
  const agent = path.join(tempDir('elenchos-agent-'), 'agent.cjs');
  writeFileSync(agent, agentSource);
  const config = {
    // The agent script lives outside the repository, in /tmp, which the agent sandbox (on by default) hides:
    // these attacks are on the verifier, the sandbox's reach is test/e2e/sandbox-escape.test.ts.
    agent: { type: 'command', command: process.execPath, args: [agent], timeoutSeconds: 30, sandbox: 'none', ...agentSettings },
    app: { command: 'node app.js --port {port}', readyTimeoutSeconds: 20 },
    verifier: { type: 'playwright', timeoutSeconds: 120, args: ['--retries=0', '--timeout=10000'] },
    maxRepairAttempts: 0,
    maxVerifierRetries: 0,
  };
  const root = tempRepo({
    '.gitignore': 'node_modules\n',
    'app.js': readFileSync(path.join(REPO_ROOT, 'test/fixtures/apps/tiny-app.js'), 'utf8'),
    'page.html': '<h1>Tasks</h1>\n<ul><li>Buy milk</li></ul>\n',
    'tasks/clear-list.json': CLEAR_TASK,
    'tests/clear-list.spec.ts': CLEAR_SPEC,
    'elenchos.config.json': `${JSON.stringify(config, null, 2)}\n`,
    ...files,
  });
  symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  return root;
}

export interface AttackRun {
  code: number | null;
  output: string;
  dir: string;
  record: Record<string, any>;
  attempt: Record<string, any>;
  /** Criterion id → status of attempt 1. */
  criteria: Record<string, string>;
}

/** `elenchos run` of the task with `env` (room for a real-browser verification on a loaded machine). */
export function runAttack(root: string, env: NodeJS.ProcessEnv = process.env): AttackRun {
  const result = spawnSync(process.execPath, [BIN, 'run', 'tasks/clear-list.json'], { cwd: root, env, encoding: 'utf8', timeout: 220_000 });
  return attackRun(root, result.status, result.stdout + result.stderr);
}

/** runAttack without blocking the worker, for cases that run together (`describe.concurrent`). */
export async function runAttackAsync(root: string, env: NodeJS.ProcessEnv = process.env): Promise<AttackRun> {
  const result = await spawnCli(['run', 'tasks/clear-list.json'], root, env, 220_000);
  return attackRun(root, result.code, result.stdout + result.stderr);
}

function attackRun(root: string, code: number | null, output: string): AttackRun {
  const [run] = readdirSync(path.join(root, '.elenchos/runs'));
  const dir = path.join(root, '.elenchos/runs', run!);
  const record = JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8'));
  let attempt: Record<string, any> = {};
  try {
    attempt = JSON.parse(readFileSync(path.join(dir, 'attempts/01/attempt.json'), 'utf8'));
  } catch {
    // no attempt record (the run ended before verification)
  }
  const criteria = Object.fromEntries((attempt.criteria ?? []).map((c: any) => [c.id, c.status]));
  return { code, output, dir, record, attempt, criteria };
}
