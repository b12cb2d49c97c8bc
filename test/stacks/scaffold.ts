// The official scaffolds, as a new user meets them: the framework's own `create` command from the npm
// registry writes the app, and it is committed as written (no hand edit: what it ignores stays ignored,
// what it commits stays committed). Then Elenchos is installed the way docs/getting-started.md says (the
// packed tarball by its absolute path; @playwright/test with the package manager when the scaffold has
// none), `init` writes its files, `check` and `doctor` must pass, and a task with one repair goes through
// the whole loop (expectVerifiedLoop). The only lines changed are what a user changes after `init`: the
// agent (a command agent here) and a task of their own with its spec beside init's example.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, inject } from 'vitest';
import { gitSync, tempDir, writeFiles } from '../helpers/temp.js';
import { agentEditsFile, elenchos, lap, STACKS_STATE, stackAgent, TASK_FILE, type Stack } from './stack.js';

export type PackageManager = 'npm' | 'pnpm' | 'yarn';

export interface ScaffoldOptions {
  /** A name for logs and folders. */
  name: string;
  /** The scaffolder, run in an empty folder; it creates `app/` there. */
  create: string[];
  pm: PackageManager;
  /** The install when the scaffolder leaves it to the user (`npm install`, `pnpm install`, …). */
  install?: string[];
  /** The task's two criteria, and the spec proving them (tests tagged @AC-001 and @AC-002). */
  criteria: [string, string];
  spec: string;
  /** The agent's edits, from the scaffold as written: attempt 1 leaves AC-002 failing, the repair fixes it. */
  edits: (root: string) => { first: Record<string, string>; repair: Record<string, string> };
  /** Playwright's per-test timeout: a dev server that compiles a page on its first visit needs more. */
  testTimeoutMs?: number;
  /**
   * The app.writes globs doctor asks for today, each a false alarm still open (named where it is set); the
   * test declares them as doctor says and goes on. Empty when the scaffold needs nothing (the goal).
   */
  knownWrites?: string[];
  /** Environment for every step (the package managers' shims on PATH). */
  env?: NodeJS.ProcessEnv;
}

// Installs never fetch a browser: the verifier drives the system Chromium (docs/playwright.md). No telemetry
// prompt or post, nowhere (Angular's, Astro's, Nuxt's, Next's): no test may call out but to the registry.
export const QUIET_ENV: NodeJS.ProcessEnv = {
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1',
  NG_CLI_ANALYTICS: 'false',
  ASTRO_TELEMETRY_DISABLED: '1',
  NUXT_TELEMETRY_DISABLED: '1',
  NEXT_TELEMETRY_DISABLED: '1',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
};

function sh(command: string[], cwd: string, env: NodeJS.ProcessEnv, step: string): SpawnSyncReturns<string> {
  // Not vitest's NODE_ENV=test (a user's shell has none), and no terminal: every scaffolder asks nothing.
  const { NODE_ENV: _vitest, ...caller } = process.env;
  const result = spawnSync(command[0]!, command.slice(1), {
    cwd,
    encoding: 'utf8',
    env: { ...caller, ...QUIET_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 480_000,
    killSignal: 'SIGKILL',
  });
  if (result.status !== 0) {
    throw new Error(
      `${step}: \`${command.join(' ')}\` in ${cwd} exited ${result.status ?? result.signal}\n${result.stdout}\n${result.stderr}`,
    );
  }
  return result;
}

/**
 * PATH with `tool@version` (pnpm, yarn) on it, installed from the npm registry once into this checkout's
 * node_modules/.cache (kept between runs, and seen inside the sandbox, whose /tmp is its own), so init's
 * `pnpm install --frozen-lockfile` runs in each run's setup as a user's would. Not corepack: the one Node
 * 20 ships cannot verify the registry's current signatures.
 */
export function toolPath(tool: string, version: string): NodeJS.ProcessEnv {
  const home = path.join(STACKS_STATE, `${tool}@${version}`);
  const bin = path.join(home, 'node_modules/.bin');
  if (!existsSync(path.join(bin, tool))) {
    mkdirSync(path.dirname(home), { recursive: true });
    const scratch = mkdtempSync(`${home}-`);
    writeFileSync(path.join(scratch, 'package.json'), '{ "private": true }\n');
    sh(['npm', 'install', '--no-package-lock', `${tool}@${version}`], scratch, {}, `npm install ${tool}@${version}`);
    try {
      renameSync(scratch, home);
    } catch {
      rmSync(scratch, { recursive: true, force: true }); // another file installed it first: take theirs
    }
  }
  return { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` };
}

const addDev: Record<PackageManager, (spec: string) => string[]> = {
  npm: (spec) => ['npm', 'install', '-D', spec],
  pnpm: (spec) => ['pnpm', 'add', '-D', spec],
  yarn: (spec) => ['yarn', 'add', '-D', spec],
};

export interface Scaffolded extends Stack {
  /** What `elenchos init --json` said. */
  init: Record<string, any>;
}

/** The packed Elenchos of this checkout (globalSetup packs it once per suite run). */
export function elenchosTarball(): string {
  return inject('elenchosTarball');
}

/**
 * Scaffolds the app, commits it as written, installs Elenchos and Playwright, runs `init`, `check` and
 * `doctor` (each must pass), and commits the task a user writes. Returns the stack expectVerifiedLoop takes.
 */
export async function scaffold(options: ScaffoldOptions): Promise<Scaffolded> {
  const env = { ...options.env };
  const clock = lap();
  const parent = tempDir(`elenchos-${options.name}-`);
  sh(options.create, parent, env, `${options.name} scaffold`);
  const root = path.join(parent, 'app');
  if (options.install) sh(options.install, root, env, `${options.name} install`);
  clock(`${options.name}: scaffold and install`);
  // The scaffold as written, committed (some scaffolders make the repository themselves).
  if (!existsSync(path.join(root, '.git'))) gitSync(root, 'init', '-q', '-b', 'main');
  gitSync(root, 'add', '-A');
  gitSync(root, 'commit', '-q', '--allow-empty', '-m', `${options.name} as scaffolded`);
  const scaffolded = gitSync(root, 'rev-parse', 'HEAD').trim();

  // 1. Install, as getting-started says: the packed tarball copied into the repository and committed (so
  // every run's setup and CI install it from there; a path under /tmp is out of the sandbox's sight), and
  // a verifier when the scaffold has none.
  const manifest = () => JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  const hasPlaywright = () => Boolean({ ...manifest().dependencies, ...manifest().devDependencies }['@playwright/test']);
  if (!hasPlaywright()) sh(addDev[options.pm]('@playwright/test'), root, env, 'install @playwright/test');
  mkdirSync(path.join(root, 'vendor'));
  copyFileSync(elenchosTarball(), path.join(root, 'vendor', path.basename(elenchosTarball())));
  sh(
    addDev[options.pm](`${options.pm === 'yarn' ? 'file:' : ''}./vendor/${path.basename(elenchosTarball())}`),
    root,
    env,
    'install elenchos',
  );
  const npx = (args: string[]) => sh(['npx', '--no', '--', 'elenchos', ...args], root, env, `elenchos ${args.join(' ')}`);
  expect(npx(['--version']).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  clock(`${options.name}: install Elenchos`);

  // 2. init, as a user would; 3. check of its example.
  const init = JSON.parse(npx(['init', '--json', '--agent', 'command', '--verifier', 'playwright']).stdout);
  const check = spawnSync('npx', ['--no', '--', 'elenchos', 'check', 'tasks/example.json'], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  expect(check.status, `check of init's example:\n${check.stdout}\n${check.stderr}`).toBe(0);

  // What a user changes after init: the agent, and a task of their own with its spec beside the example's.
  const configFile = path.join(root, 'elenchos.config.json');
  const config = JSON.parse(readFileSync(configFile, 'utf8'));
  const editsFile = agentEditsFile(options.name);
  writeFileSync(editsFile, JSON.stringify(options.edits(root)));
  config.agent = {
    type: 'command',
    command: process.execPath,
    args: [stackAgent(), editsFile],
    timeoutSeconds: 120,
  };
  config.verifier = {
    ...config.verifier,
    timeoutSeconds: 300,
    args: ['--retries=0', `--timeout=${options.testTimeoutMs ?? 60_000}`],
  };
  config.maxRepairAttempts = 2;
  const example = (init.files as { path: string }[]).map((f) => f.path).find((p) => /example\.spec\.[jt]s$/.test(p));
  expect(example, JSON.stringify(init)).toBeTruthy();
  const specFile = example!.replace(/example(\.spec\.[jt]s)$/, 'feature$1');
  const task = {
    id: 'feature',
    title: `A feature of the ${options.name} scaffold`,
    description: 'What the spec checks.',
    acceptanceCriteria: options.criteria.map((description, i) => ({ id: `AC-00${i + 1}`, description })),
    verification: { testFile: specFile },
  };
  writeFiles(root, {
    'elenchos.config.json': `${JSON.stringify(config, null, 2)}\n`,
    [TASK_FILE]: `${JSON.stringify(task, null, 2)}\n`,
    [specFile]: options.spec,
  });
  gitSync(root, 'add', '-A');
  gitSync(root, 'commit', '-q', '-m', 'Elenchos');
  clock(`${options.name}: init, check`);

  // 3. doctor: every check a run makes before the agent starts, and a real start of the app; no app write
  // left to declare (a run would end UNSTABLE_WORKSPACE).
  const doctor = await elenchos(['doctor'], root, env);
  clock(`${options.name}: doctor`, doctor.stdout);
  expect(doctor.code, `doctor:\n${doctor.stdout}\n${doctor.stderr}`).toBe(0);
  expect(doctor.stdout).toMatch(/✓ app /);
  expect(gitSync(root, 'status', '--porcelain'), 'doctor left the checkout as it was').toBe('');
  const flagged = [...doctor.stdout.matchAll(/^! app writes .*add "([^"]+)" to app\.writes/gm)].map((m) => m[1]);
  expect(flagged, 'the app writes doctor asks to declare').toEqual(options.knownWrites ?? []);
  if (flagged.length > 0) {
    // A known false alarm, declared as doctor's fix says (see knownWrites): the rest of the loop still runs.
    config.app = { ...config.app, writes: flagged };
    writeFiles(root, { 'elenchos.config.json': `${JSON.stringify(config, null, 2)}\n` });
    gitSync(root, 'commit', '-qam', 'app.writes, as doctor says');
  }

  expect(
    gitSync(
      root,
      'diff',
      '--stat',
      scaffolded,
      'HEAD',
      '--',
      '.',
      ':!package.json',
      ':!package-lock.json',
      ':!pnpm-lock.yaml',
      ':!yarn.lock',
      ':!.gitignore',
      ':!elenchos.config.json',
      ':!tasks',
      ':!vendor',
      `:!${path.posix.dirname(example!)}`,
    ),
  ).toBe('');
  return { root, base: gitSync(root, 'rev-parse', 'HEAD').trim(), gitignore: readFileSync(path.join(root, '.gitignore'), 'utf8'), init };
}

/** The note the agent adds: attempt 1 misspells it, the repair spells it right. */
export const NOTE = 'Checked by Elenchos';
const MISSPELT = 'Checked by Elenchus';

/** The spec every scaffold's task has: the home page as scaffolded (AC-001), and the agent's note on it (AC-002). */
export function noteSpec(heading: string): string {
  return `import { expect, test } from '@playwright/test';

test('shows the home page as scaffolded @AC-001', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { name: ${JSON.stringify(heading)} }).first()).toBeVisible();
});

test('shows the note @AC-002', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByTestId('elenchos-note')).toHaveText(${JSON.stringify(NOTE)});
});
`;
}

/**
 * The agent's edits of `file` (relative to the root): a note element inserted before the first `anchor`,
 * misspelt on attempt 1. `attribute` is how the framework spells the attribute (`data-testid` everywhere
 * but JSX-free templates alike).
 */
export function noteEdits(file: string, anchor: string): ScaffoldOptions['edits'] {
  return (root) => {
    const text = readFileSync(path.join(root, file), 'utf8');
    const at = text.indexOf(anchor);
    if (at < 0) throw new Error(`${file} of the scaffold has no ${JSON.stringify(anchor)}: the scaffold changed, pick another anchor`);
    const withNote = (note: string) => `${text.slice(0, at)}<p data-testid="elenchos-note">${note}</p>\n${text.slice(at)}`;
    return { first: { [file]: withNote(MISSPELT) }, repair: { [file]: withNote(NOTE) } };
  };
}
