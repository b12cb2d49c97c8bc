// Preflight: everything that must hold before a run exists. Each failure is one line naming the fix (exit 3).
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { agentAdapter } from '../../agents/registry.js';
import { agentNotFoundFix } from '../../agents/not-found-fix.js';
import { costCapProblem } from '../../agents/cost-cap.js';
import type { SandboxResolution } from '../../agents/sandbox-mode.js';
import { appPortProblems } from '../../config/app-port-rule.js';
import type { Config } from '../../config/config-schema.js';
import { loadConfig, type LoadedConfig } from '../../config/load-config.js';
import { checkSetupCopy } from '../../config/setup-copy.js';
import { PreflightError } from '../../errors.js';
import { findRepoRoot } from '../../git/git.js';
import { gitTracking, readCheckoutState, type CheckoutState, type Tracking } from '../../git/status.js';
import { commandExecutable } from '../../process/command-string.js';
import { findExecutable } from '../../process/find-executable.js';
import { sandboxFor } from '../sandbox-probe.js';
import { globMatcher } from '../../util/glob-match.js';
import { checkJsonInputs } from '../json-inputs.js';
import { frameworkSyncFor, generatedHere } from '../workspace/framework-sync.js';
import { checkMapping } from '../lock/mapping-hint.js';
import { resolveTask, type ResolvedTask } from '../resolve-task.js';
import { checkTestLock } from '../lock/test-lock-check.js';
import { setupCopiesTracked, setupCopyPaths } from '../workspace/setup-copy-tracked.js';
import { findVerifierInputs } from '../lock/verifier-inputs.js';
import { refuseNeedsHuman } from '../stored-runs/needs-human.js';
import { verifierInvocation } from './verify-context.js';
import { refuseWeakeningArgs } from '../../verifiers/playwright/weakening-args.js';

/** An `app.writes` glob may not cover what the run locks: the contract would be put back and left out of every check. */
function checkAppWrites(config: Config, configLabel: string, locked: readonly string[]): void {
  for (const glob of config.app.writes) {
    const hit = locked.find(globMatcher([glob]));
    if (hit) {
      throw new PreflightError(
        'APP_WRITES_LOCKED',
        `${configLabel}: app.writes "${glob}" covers ${hit}, which the run locks; declare only what the app writes (e.g. "data/db.json")`,
      );
    }
  }
}

export interface PreflightOptions {
  cwd: string;
  taskFile: string;
  configFile?: string;
  env: NodeJS.ProcessEnv;
  overrides?: Record<string, unknown>;
  /** `verify` runs no agent. */
  needsAgent: boolean;
  /**
   * Refuse a dollar cap this run's one agent cannot report (a plain run). A best-of run checks the cap over
   * all its candidates' agents at once instead (candidates-cost-cap.ts): one that reports dollars is enough.
   */
  costCap?: boolean;
  /** Refuse uncommitted changes (run: the agent works on HEAD; verify --in-place: the checkout is verified). */
  requireClean?: boolean;
  /** `--lock-base <ref>`: a test lock changed since this commit without its contract is refused. */
  lockBase?: string;
  /** The repository's top level, when the caller already asked git for it (`verify` of many tasks). */
  repoRoot?: string;
  /** The checkout's HEAD and uncommitted paths as the caller read them once for all its tasks (`verify`). */
  checkout?: CheckoutState;
}

export interface Preflight {
  root: string;
  head: string;
  loaded: LoadedConfig;
  /** The config with `agent.sandbox` resolved to "bwrap" or "none" (never "auto"). */
  config: Config;
  /** The sandbox the agent, the app and setup.command run in, and why. */
  sandbox: SandboxResolution;
  resolved: ResolvedTask;
  /** Repo-relative inputs the verifier reads besides the task and test file (all present, committed or copied). */
  extraInputs: string[];
}

/** Checks repository, tree, inputs and executables; throws PreflightError/InputError before anything runs. */
export async function preflight(options: PreflightOptions): Promise<Preflight> {
  const root = options.repoRoot ?? (await findRepoRoot(options.cwd));
  if (root === null) {
    throw new PreflightError(
      'NOT_A_REPOSITORY',
      `${options.cwd} is not inside a git repository; run elenchos from your project's checkout`,
    );
  }
  // HEAD and the status of the whole tree come from one git process (the caller's, when it read them once
  // for all its tasks); the dirty paths are awaited where they are needed (errors keep their order).
  const checkout = options.checkout ?? readCheckoutState(root);
  const head = await checkout.head;
  if (head === null)
    throw new PreflightError('NO_COMMIT', `${root} has no commit yet; commit your project first (the agent works on a worktree of HEAD)`);
  const loaded = await loadConfig({ root, file: options.configFile, env: options.env, overrides: options.overrides });
  // Whether the sandbox holds is asked now, before anything of the run starts (a verify needs it too:
  // the app and setup.command run in it). Everything after sees "bwrap" or "none", never "auto".
  const sandbox = await sandboxFor(loaded.config.agent.sandbox);
  const config: Config = { ...loaded.config, agent: { ...loaded.config.agent, sandbox: sandbox.mode } };
  const portProblems = appPortProblems(config.app, loaded.label);
  if (portProblems.length > 0) throw new PreflightError('APP_PORT_MISMATCH', portProblems[0]!, { details: portProblems.slice(1) });
  const costCap = options.needsAgent && options.costCap ? costCapProblem(config, loaded.label) : null;
  if (costCap) throw new PreflightError('COST_CAP_UNENFORCEABLE', costCap);
  // run and verify write into .elenchos/ anyway: the Playwright listing is kept there for the next one.
  const resolved = await resolveTask(path.resolve(options.cwd, options.taskFile), root, config, options.env, { keepListing: true });
  if (options.needsAgent) await refuseNeedsHuman(root, config, resolved.label, resolved.task.id);
  if (resolved.label.startsWith('/') || resolved.label.startsWith('..')) {
    throw new PreflightError(
      'TASK_OUTSIDE_REPOSITORY',
      `${resolved.label}: the task file must be inside the repository ${root}; move it there and commit it`,
    );
  }
  // The lock first: a deleted or renamed step also unmaps its criterion, and the lock says which commit did it.
  const testLock = await checkTestLock(root, resolved, {
    base: options.lockBase,
    configFile: options.configFile,
    dirty: () => checkout.dirty,
  });
  if (testLock.problems.length > 0) {
    throw new PreflightError(
      'TEST_WEAKENED',
      `${resolved.label}: the test no longer verifies what ${testLock.file} locked (${testLock.problems.length} problem(s)); restore it, or if the change is intended run elenchos lock --update ${resolved.label} and have the lock's diff reviewed`,
      { details: testLock.problems },
    );
  }
  checkMapping(resolved);
  refuseWeakeningArgs(resolved.verifierType, verifierInvocation(config, resolved), loaded.label);
  const dirty = await checkout.dirty;
  if (dirty.length > 0 && options.requireClean !== false) {
    const shown = dirty.slice(0, 10).join(', ') + (dirty.length > 10 ? `, and ${dirty.length - 10} more` : '');
    const why = options.needsAgent ? 'the agent works on HEAD' : 'verify --in-place checks the committed code';
    throw new PreflightError('DIRTY_TREE', `the working tree is not clean (${shown}); commit or stash these changes first: ${why}`, {
      details: dirty.length > 10 ? dirty : [],
    });
  }
  // "Committed" is "in HEAD and not changed since": git is asked once for every file the run locks, and for
  // the setup.copy entries (which must not be tracked). The test lock is part of the contract: an agent that
  // rewrites it is caught like one that rewrites the test.
  const inputs = await findVerifierInputs(root, resolved, config);
  if (inputs.unresolved.length > 0)
    throw new PreflightError('VERIFIER_INPUT_UNRESOLVED', inputs.unresolved[0]!, { details: inputs.unresolved.slice(1) });
  const extras = [...inputs.files, ...(testLock.file ? [testLock.file] : [])];
  const broken = await checkJsonInputs(root, extras);
  if (broken.length > 0) throw new PreflightError('VERIFIER_INPUT_INVALID', broken[0]!, { details: broken.slice(1) });
  const tracking = await gitTracking(root, [resolved.label, resolved.testFileLabel, ...extras, ...setupCopyPaths(config.setup.copy)]);
  const inHead = new Set(tracking.inHead);
  const changed = new Set(dirty);
  for (const [what, file] of [
    ['task file', resolved.label],
    ['test file', resolved.testFileLabel],
  ] as const) {
    if (!inHead.has(file) || changed.has(file)) {
      throw new PreflightError(
        'NOT_COMMITTED',
        `${file}: the ${what} is not committed as it is; git add and commit it (the run locks the committed contract)`,
      );
    }
  }
  for (const file of extras) if (changed.has(file)) inHead.delete(file);
  const extraInputs = await checkVerifierInputs(resolved, config, root, loaded.label, extras, { inHead, tracking });
  checkAppWrites(config, loaded.label, [resolved.label, resolved.testFileLabel, ...extras]);
  await checkExecutables(config, resolved, root, options.env, options.needsAgent);
  if (!config.app.command) {
    throw new PreflightError(
      'NO_APP_COMMAND',
      `${loaded.label}: app.command is not set; set it to the command that starts your app, e.g. "npm run dev -- --port {port}"`,
    );
  }
  return { root, head, loaded, config, sandbox, resolved, extraInputs };
}

/**
 * Every other file the verifier reads must reach the worktree the same: committed, or copied by
 * `setup.copy` (a git-ignored variables file with secrets). Otherwise the lock would blame the agent.
 */
async function checkVerifierInputs(
  resolved: ResolvedTask,
  config: Config,
  root: string,
  configLabel: string,
  extra: string[],
  git: { inHead: ReadonlySet<string>; tracking: Tracking },
): Promise<string[]> {
  const { inHead } = git;
  // Whether each input is there, looked at once (reported after the setup.copy problems, as before).
  const present = new Map(await Promise.all(extra.map(async (file) => [file, await isFile(path.join(root, file))] as const)));
  const copy = await checkSetupCopy(config.setup.copy, root, configLabel);
  if (copy.problems.length > 0) throw new PreflightError('SETUP_COPY_MISSING', copy.problems[0]!, { details: copy.problems.slice(1) });
  const tracked = setupCopiesTracked(config.setup.copy, configLabel, git.tracking);
  if (tracked.length > 0) throw new PreflightError('SETUP_COPY_TRACKED', tracked[0]!, { details: tracked.slice(1) });
  const copied = new Set(copy.files);
  for (const file of extra) {
    if (!present.get(file)) {
      throw new PreflightError(
        'VERIFIER_INPUT_MISSING',
        `${file}: ${resolved.testFileLabel} needs it (the verifier reads it) but it does not exist; create and commit it, or fix the reference`,
      );
    }
    // A file the framework generates (SvelteKit's .svelte-kit/tsconfig.json): its sync step writes it in the worktree.
    if (!copied.has(file) && !inHead.has(file) && !(await generatedHere(root, file))) {
      const sync = frameworkSyncFor(file);
      if (sync)
        throw new PreflightError(
          'VERIFIER_INPUT_NOT_COMMITTED',
          `${file}: the verifier reads it and ${sync.framework} generates it, but \`${sync.bin}\` is not installed under node_modules/.bin; install your dependencies (npm install), then run elenchos again`,
        );
      throw new PreflightError(
        'VERIFIER_INPUT_NOT_COMMITTED',
        `${file}: the verifier reads it but it is not committed, so the worktree would not have it; commit it, or list it in setup.copy if it must stay git-ignored`,
      );
    }
  }
  return extra;
}

async function isFile(file: string): Promise<boolean> {
  return stat(file).then(
    (s) => s.isFile(),
    () => false,
  );
}

/** The agent's executable (when the run has an agent) and the verifier's are there, both looked up at once. */
async function checkExecutables(
  config: Config,
  resolved: ResolvedTask,
  root: string,
  env: NodeJS.ProcessEnv,
  needsAgent: boolean,
): Promise<void> {
  if (needsAgent && config.agent.type === 'command' && !config.agent.command) {
    throw new PreflightError(
      'NO_AGENT_COMMAND',
      'agent.command is not set; agent.type "command" needs the executable to run (e.g. "./scripts/agent.sh")',
    );
  }
  const agent = needsAgent ? agentAdapter(config.agent.type).command(config.agent).command : null;
  // "npx playwright" is a command and its first argument: look up the executable only.
  const configured = verifierInvocation(config, resolved).command;
  const verifier = commandExecutable(configured ?? resolved.verifier.defaultCommand().command);
  const lookup = { cwd: root, pathEnv: env.PATH };
  const [agentFound, verifierFound] = await Promise.all([
    agent === null ? true : findExecutable(agent, lookup),
    findExecutable(verifier, lookup),
  ]);
  if (agent !== null && !agentFound) {
    throw new PreflightError(
      'AGENT_NOT_FOUND',
      `agent executable "${agent}" not found (agent.type ${config.agent.type}); ${agentNotFoundFix(agent)}`,
    );
  }
  if (!verifierFound) {
    const hint = resolved.verifierType === 'kane' ? 'install it with `npm install -g @testmuai/kane-cli`' : 'install it';
    throw new PreflightError(
      'VERIFIER_NOT_FOUND',
      `verifier executable "${verifier}" not found (verifier.type ${resolved.verifierType}); ${hint} or set verifier.command`,
    );
  }
}
