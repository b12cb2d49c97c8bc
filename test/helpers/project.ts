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

/** The fake Kane reading the served page (each `Verify "…"` step passes when the text is there). */
export const KANE_CHECK_PAGE = { type: 'kane', command: FAKE_KANE, env: { FAKE_KANE_SCENARIO: 'check-page' } };

/** A page with the form but no list item: `add-task` fails on it, the form and title tasks below pass. */
export const FORM_PAGE = { 'page.html': '<h1>Tasks</h1><form>New task</form><ul></ul>\n' };

/** Task `form` (one criterion: "New task" is on the page) and its Kane test. */
export const FORM_TASK = {
  'tasks/form.json': taskJson({
    id: 'form',
    acceptanceCriteria: [{ id: 'AC-001', description: 'the form' }],
    verification: { testFile: 'tests/form_test.md' },
  }),
  'tests/form_test.md': '## Step 1 @verifies AC-001\nVerify "New task".\n',
};

/** Task `title` (one criterion: "Tasks" is on the page) and its Kane test. */
export const TITLE_TASK = {
  'tasks/title.json': taskJson({
    id: 'title',
    acceptanceCriteria: [{ id: 'AC-001', description: 'the title' }],
    verification: { testFile: 'tests/title_test.md' },
  }),
  'tests/title_test.md': '## Step 1 @verifies AC-001\nVerify "Tasks".\n',
};

/** A command agent running the scripted fake agent with `behaviour` (test/fixtures/agents/fake-agent.js). */
export const commandAgent = (behaviour: string, ...more: string[]) => ({
  type: 'command',
  command: process.execPath,
  args: [FAKE_AGENT, behaviour, ...more],
  timeoutSeconds: 30,
});

/** A git identity for the commits a test's CLI makes (`apply --commit`) on a machine without one. */
export const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: 'u',
  GIT_AUTHOR_EMAIL: 'u@example.com',
  GIT_COMMITTER_NAME: 'u',
  GIT_COMMITTER_EMAIL: 'u@example.com',
};

export interface ProjectOptions {
  agent?: string;
  scenario?: string;
  config?: Record<string, unknown>;
  files?: Record<string, string>;
  /** Where the repository and HOME are made (the temp folder by default; /var/tmp for a sandbox's tests, whose /tmp is a tmpfs of its own that would hide them anyway). */
  parent?: string;
}

/** Creates the project and returns its root, a HOME for the fake Kane, and the env to run the CLI with. */
export function makeProject(options: ProjectOptions = {}): { root: string; home: string; env: NodeJS.ProcessEnv } {
  const config: Record<string, unknown> = {
    agent: { type: 'command', command: process.execPath, args: [FAKE_AGENT, options.agent ?? 'implement'], timeoutSeconds: 30 },
    app: { command: 'node app.js --port {port}', readyTimeoutSeconds: 10 },
    verifier: { type: 'kane', command: FAKE_KANE, timeoutSeconds: 30, env: { FAKE_KANE_SCENARIO: options.scenario ?? 'check-page' } },
    maxRepairAttempts: 2,
    maxVerifierRetries: 1,
    ...options.config,
  };
  // "none" unless the test names one: these projects test what holds without the sandbox (the default,
  // "auto", would put every fake agent in bubblewrap where it is installed); the sandbox's own tests say "bwrap" or "auto".
  config.agent = { sandbox: 'none', ...(config.agent as Record<string, unknown>) };
  if (config.agents)
    config.agents = Object.fromEntries(
      Object.entries(config.agents as Record<string, Record<string, unknown>>).map(([name, agent]) => [
        name,
        { sandbox: 'none', ...agent },
      ]),
    );
  const root = tempRepo(
    {
      'app.js': readFileSync(path.join(FIXTURES, 'apps/tiny-app.js'), 'utf8'),
      'page.html': '<h1>Tasks</h1>\n',
      'tasks/add-task.json': taskJson(),
      'tests/add-task_test.md': TEST_MD,
      'elenchos.config.json': `${JSON.stringify(config, null, 2)}\n`,
      ...options.files,
    },
    options.parent,
  );
  const home = tempDir('elenchos-home-', options.parent);
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
