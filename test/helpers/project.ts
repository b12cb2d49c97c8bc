// A real project for end-to-end runs: a git repo with a tiny HTTP app, a task, a Kane test,
// a config pointing at the scripted fake agent and the fake kane-cli.
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { taskJson, tempDir, tempRepo } from './temp.js';

export const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
export const FAKE_AGENT = path.join(FIXTURES, 'agents/fake-agent.js');
export const FAKE_KANE = path.join(FIXTURES, 'bin/kane-cli');

export const TEST_MD = `---
mode: testing
---

# Add a task

<!-- @verifies AC-999 is ignored here: not a step -->

## Step 1 — the form is there @verifies AC-001

Open {{start_url}} and verify the page shows "New task".

## Step 2 — the task is listed @verifies AC-002

Verify the list shows "Buy milk".
`;

export interface ProjectOptions {
  agent?: string;
  scenario?: string;
  config?: Record<string, unknown>;
  files?: Record<string, string>;
}

/** Creates the project and returns its root, a HOME for the fake Kane, and the env to run the CLI with. */
export function makeProject(options: ProjectOptions = {}): { root: string; home: string; env: NodeJS.ProcessEnv } {
  const config = {
    agent: { type: 'command', command: process.execPath, args: [FAKE_AGENT, options.agent ?? 'implement'], timeoutSeconds: 30 },
    app: { command: 'node app.js --port {port}', readyTimeoutSeconds: 10 },
    verifier: { type: 'kane', command: FAKE_KANE, timeoutSeconds: 30, env: { FAKE_KANE_SCENARIO: options.scenario ?? 'check-page' } },
    maxRepairAttempts: 2,
    maxVerifierRetries: 1,
    ...options.config,
  };
  const root = tempRepo({
    'app.js': readFileSync(path.join(FIXTURES, 'apps/tiny-app.js'), 'utf8'),
    'page.html': '<h1>Tasks</h1>\n',
    'tasks/add-task.json': taskJson(),
    'tests/add-task_test.md': TEST_MD,
    'elenchos.config.json': `${JSON.stringify(config, null, 2)}\n`,
    ...options.files,
  });
  const home = tempDir('elenchos-home-');
  return { root, home, env: { HOME: home } };
}

/**
 * Every file of the checkout (outside .git and .elenchos) with its content hash, to prove nothing else moved.
 * With `folders`, also every folder (with its mode) and every symbolic link (with its target), not followed:
 * a change rolled back must leave no folder or link of its own behind either.
 */
export function checkoutFingerprint(root: string, options: { folders?: boolean } = {}): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const rel = path.relative(root, full);
      if (rel === '.git' || rel === '.elenchos') continue;
      if (options.folders && entry.isSymbolicLink()) out[rel] = `-> ${readlinkSync(full)}`;
      else if (entry.isDirectory()) {
        if (options.folders) out[`${rel}/`] = (lstatSync(full).mode & 0o7777).toString(8);
        walk(full);
      } else out[rel] = createHash('sha256').update(readFileSync(full)).digest('hex') + (statSync(full).mode & 0o111 ? '+x' : '');
    }
  };
  walk(root);
  return out;
}

/** Pids of live processes whose cwd is inside `dir` (leftovers of a run). */
export function processesInside(dir: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cwd = readlinkSync(`/proc/${name}/cwd`);
      if (cwd === dir || cwd.startsWith(`${dir}/`)) pids.push(Number(name));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

/** Reads `.elenchos/runs/<only run>/run.json`. */
export function onlyRun(root: string): { dir: string; record: Record<string, any> } {
  const runs = readdirSync(path.join(root, '.elenchos/runs'));
  if (runs.length !== 1) throw new Error(`expected one run, found ${runs.length}`);
  const dir = path.join(root, '.elenchos/runs', runs[0]!);
  return { dir, record: JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8')) };
}
