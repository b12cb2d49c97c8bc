// `elenchos init`: plan what to write from what the project shows, then write only files that do not exist.
import { constants } from 'node:fs';
import { appendFile, lstat, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AgentType } from '../../config/config-schema.js';
import { CONFIG_FILE } from '../../config/load-config.js';
import { findRepoRoot } from '../../git/git.js';
import {
  appCommandFor,
  appUrlFor,
  chooseAgent,
  chooseVerifier,
  detectProject,
  setupCacheFor,
  setupCommandFor,
  type DetectedProject,
  type InitVerifier,
} from './detect-project.js';
import { GITHUB_WORKFLOW, renderGithubWorkflow } from './github-workflow.js';
import { detectPinnedElenchos } from './pinned-elenchos.js';
import { GITHUB_AGENTS_WORKFLOW, renderAgentsWorkflow } from './github-agents-workflow.js';
import { K8S_DOCKERFILE, K8S_JOIN_JOB, K8S_SHARES_JOB, renderDockerfile, renderJoinJob, renderSharesJob } from './k8s-job.js';
import { EXAMPLE_TASK, exampleTestPath, renderConfig, renderExampleTask, renderKaneTest, renderPlaywrightSpec } from './scaffold.js';
import { ELENCHOS_DIR_NAME } from '../../evidence/layout.js';
import { probeSandbox } from '../sandbox-probe.js';
import { resolveSandbox, type SandboxResolution } from '../../agents/sandbox-mode.js';

export interface InitOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  verifier?: InitVerifier;
  agent?: AgentType;
  appCommand?: string;
  /** Also write a CI workflow. */
  ci?: 'github';
  /** With `ci: 'github'`: the agents' workflow too (shares, join, publish: docs/scale.md). */
  agents?: boolean;
  /** Write the Kubernetes Indexed Job, its join Job and its image's Dockerfile (docs/scale.md#kubernetes). */
  k8s?: boolean;
  /** Share jobs (matrix entries, Job indexes); default 2. */
  shares?: number;
  /** The Kubernetes Job ends at the first VERIFIED share (a successPolicy). */
  stopAtFirst?: boolean;
  /** Where bubblewrap is looked for (default /usr/bin/bwrap). */
  bwrap?: string;
}

export interface PlannedFile {
  /** Repo-relative, `/`-separated. */
  path: string;
  content: string;
  /** `create`: a new file; `append`: lines added to an existing file; `skip`: left as it is. */
  action: 'create' | 'append' | 'skip';
  why: string;
}

export interface InitPlan {
  root: string;
  detected: DetectedProject;
  choices: {
    verifier: InitVerifier;
    verifierWhy: string;
    agent: AgentType;
    agentWhy: string;
    appCommand: string | null;
    appUrl: string;
    /** Why app.url is not the default, when it is not. */
    appUrlWhy: string | null;
    setupCommand: string | null;
    /** What `agent.sandbox: "auto"` (written into the config) gives on this machine, and why. */
    sandbox: SandboxResolution & { fix: string | null };
  };
  files: PlannedFile[];
  /** What the user still has to do, one line each. */
  next: string[];
}

export const IGNORE_LINE = `${ELENCHOS_DIR_NAME}/`;

/** Detects, chooses and lists every file with what init would do to it; writes nothing. */
export async function planInit(options: InitOptions): Promise<InitPlan> {
  const repository = await findRepoRoot(options.cwd);
  const root = repository ?? options.cwd;
  const detected = await detectProject(root, options.env);
  const verifier = options.verifier ? { verifier: options.verifier, why: 'chosen with --verifier' } : chooseVerifier(detected);
  const agent = options.agent ? { agent: options.agent, why: 'chosen with --agent' } : chooseAgent(detected);
  const appCommand = options.appCommand ?? appCommandFor(detected);
  const setupCommand = setupCommandFor(detected);
  const appUrl = appUrlFor(detected);
  const testFile = exampleTestPath(verifier.verifier, detected.playwrightTestDir);
  const sandbox = await initSandbox(options.bwrap);
  const wanted: { path: string; content: string; why: string }[] = [
    {
      path: CONFIG_FILE,
      content: renderConfig({
        verifier: verifier.verifier,
        agent: agent.agent,
        appCommand,
        appUrl: appUrl.url,
        setupCommand,
        setupCache: setupCacheFor(setupCommand),
        testFile,
      }),
      why: 'the configuration',
    },
    { path: EXAMPLE_TASK, content: renderExampleTask(testFile), why: 'an example task contract' },
    {
      path: testFile,
      content: verifier.verifier === 'kane' ? renderKaneTest() : renderPlaywrightSpec(),
      why: 'its test, one step per criterion',
    },
  ];
  const pin = options.ci === 'github' || options.k8s ? await detectPinnedElenchos(root) : null;
  if (pin && options.ci === 'github') {
    // GitHub's runners have npm; pnpm and yarn come from Node's corepack.
    const install = setupCommand && !setupCommand.startsWith('npm ') ? `corepack enable && ${setupCommand}` : (setupCommand ?? 'npm ci');
    wanted.push({
      path: GITHUB_WORKFLOW,
      content: renderGithubWorkflow({ verifier: verifier.verifier, install, pin }),
      why: 'the CI workflow',
    });
  }
  if (options.agents || options.k8s)
    wanted.push(...(await scalingFiles(options, root, { verifier: verifier.verifier, agent: agent.agent, setupCommand })));
  const files: PlannedFile[] = [];
  for (const file of wanted) {
    // lstat: a symlink counts as a file, even a dangling one, so nothing is ever written through it.
    const exists = await lstat(path.join(root, file.path)).then(
      () => true,
      () => false,
    );
    files.push({ ...file, action: exists ? 'skip' : 'create', why: exists ? 'already exists; left as it is' : file.why });
  }
  files.push(await planIgnore(root));
  return {
    root,
    detected,
    choices: {
      verifier: verifier.verifier,
      verifierWhy: verifier.why,
      agent: agent.agent,
      agentWhy: agent.why,
      appCommand,
      appUrl: appUrl.url,
      appUrlWhy: appUrl.why,
      setupCommand,
      sandbox,
    },
    files,
    next: [
      ...(repository === null
        ? ['this folder is not in a git repository: git init and commit your project (runs work on a worktree of HEAD)']
        : []),
      ...nextSteps(detected, verifier.verifier, agent.agent, appCommand, files),
      ...(sandbox.fix
        ? [`${sandbox.fix}: agent.sandbox "auto" then runs the agent, its app and setup in bubblewrap (docs/security.md#the-agent-sandbox)`]
        : []),
      ...(pin?.kind === 'none' && files.some((f) => PINNED_FILES.includes(f.path) && f.action === 'create')
        ? [
            `set ELENCHOS_PIN in ${GITHUB_WORKFLOW} to the Elenchos CI runs (a git URL with its commit, or a tarball in the repository and its sha256): none was found in package-lock.json or package.json (docs/ci.md#the-pinned-elenchos)`,
          ]
        : []),
    ],
  };
}

// Files that run the pinned Elenchos: a missing pin is worth a line of what to do.
const PINNED_FILES = [GITHUB_WORKFLOW, GITHUB_AGENTS_WORKFLOW, K8S_DOCKERFILE];

/** The agents' workflow (with --ci github --agents) and the Kubernetes files (with --k8s). */
async function scalingFiles(
  options: InitOptions,
  root: string,
  chosen: { verifier: InitVerifier; agent: AgentType; setupCommand: string | null },
): Promise<{ path: string; content: string; why: string }[]> {
  const pin = await detectPinnedElenchos(root);
  const install =
    chosen.setupCommand && !chosen.setupCommand.startsWith('npm ')
      ? `corepack enable && ${chosen.setupCommand}`
      : (chosen.setupCommand ?? 'npm ci');
  const shares = options.shares ?? 2;
  const base = { verifier: chosen.verifier, agent: chosen.agent, install, pin, shares };
  const out: { path: string; content: string; why: string }[] = [];
  if (options.agents && options.ci === 'github')
    out.push({ path: GITHUB_AGENTS_WORKFLOW, content: renderAgentsWorkflow(base), why: 'the agents workflow: shares, join, publish' });
  if (options.k8s) {
    const k8s = { ...base, stopAtFirst: options.stopAtFirst === true, task: EXAMPLE_TASK };
    out.push({ path: K8S_SHARES_JOB, content: renderSharesJob(k8s), why: 'the Kubernetes Indexed Job: one share per index' });
    out.push({ path: K8S_JOIN_JOB, content: renderJoinJob(k8s), why: 'the Kubernetes Job that joins the shares' });
    out.push({ path: K8S_DOCKERFILE, content: renderDockerfile(k8s), why: 'the image both Jobs run, Elenchos pinned' });
  }
  return out;
}

/** What the config's `agent.sandbox: "auto"` gives here (the probe a run uses), and what would turn it on. */
async function initSandbox(bwrap: string | undefined): Promise<InitPlan['choices']['sandbox']> {
  const probe = await probeSandbox(bwrap);
  return { ...resolveSandbox('auto', probe), fix: probe.holds ? null : (probe.fix ?? null) };
}

/** Writes the plan's `create` and `append` files; a file that appeared since the plan is still never overwritten. */
export async function applyInit(plan: InitPlan): Promise<InitPlan> {
  const files: PlannedFile[] = [];
  for (const file of plan.files) {
    const target = path.join(plan.root, file.path);
    if (file.action === 'create') {
      await mkdir(path.dirname(target), { recursive: true });
      try {
        await writeFile(target, file.content, { flag: constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        files.push({ ...file, action: 'skip', why: 'appeared while init ran; left as it is' });
        continue;
      }
    } else if (file.action === 'append') {
      await appendFile(target, file.content);
    }
    files.push(file);
  }
  return { ...plan, files };
}

async function planIgnore(root: string): Promise<PlannedFile> {
  const file = path.join(root, '.gitignore');
  if ((await lstat(file).catch(() => null))?.isSymbolicLink()) {
    return { path: '.gitignore', content: '', action: 'skip', why: `is a symlink; not written through: add ${IGNORE_LINE} to it yourself` };
  }
  const current = await readText(file);
  if (current === null)
    return {
      path: '.gitignore',
      content: `${IGNORE_LINE}\n`,
      action: 'create',
      why: `keeps ${IGNORE_LINE} (runs, evidence, worktrees) out of git`,
    };
  const ignored = current
    .split(/\r?\n/)
    .some((line) => [ELENCHOS_DIR_NAME, `${ELENCHOS_DIR_NAME}/`, `/${ELENCHOS_DIR_NAME}`, `/${ELENCHOS_DIR_NAME}/`].includes(line.trim()));
  if (ignored) return { path: '.gitignore', content: '', action: 'skip', why: `already ignores ${IGNORE_LINE}` };
  const separator = current === '' || current.endsWith('\n') ? '' : '\n';
  return {
    path: '.gitignore',
    content: `${separator}${IGNORE_LINE}\n`,
    action: 'append',
    why: `adds ${IGNORE_LINE} (runs, evidence, worktrees)`,
  };
}

async function readText(file: string): Promise<string | null> {
  return readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
}

function nextSteps(
  detected: DetectedProject,
  verifier: InitVerifier,
  agent: AgentType,
  appCommand: string | null,
  files: PlannedFile[],
): string[] {
  const next: string[] = [];
  if (!appCommand)
    next.push(`set app.command in ${CONFIG_FILE} to the command that starts your app on {port} (no dev or start script was found)`);
  else next.push(`check that \`${appCommand}\` serves the app on {port} (or reads PORT); elenchos doctor starts it once to prove it`);
  if (verifier === 'kane' && !detected.kaneCli) next.push('install the verifier: npm install -g @testmuai/kane-cli, then kane-cli login');
  if (verifier === 'playwright' && !detected.playwrightDependency)
    next.push('add Playwright to the project: npm install -D @playwright/test');
  if (agent === 'claude' && !detected.claude) next.push('install Claude Code (claude on PATH), or set agent.type to codex or command');
  if (agent === 'gemini' && !detected.gemini)
    next.push('install Gemini CLI (npm install -g @google/gemini-cli), and name its key in agent.passEnv (GEMINI_API_KEY)');
  if (agent === 'opencode' && !detected.opencode)
    next.push("install OpenCode (npm install -g opencode-ai), and name its provider's key in agent.passEnv (e.g. ANTHROPIC_API_KEY)");
  const task = files.find((f) => f.path === EXAMPLE_TASK);
  next.push(
    `commit the new files (a run locks the committed contract), then: npx elenchos doctor && npx elenchos check ${task?.path ?? EXAMPLE_TASK}`,
  );
  return next;
}
