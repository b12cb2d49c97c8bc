// Doctor's checks of the machine: Node, git, the verifier (and Kane's login), a Chromium, the agent.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { accountHome } from '../../util/account-home.js';
import { agentNotFoundFix } from '../../agents/not-found-fix.js';
import { agentAdapter } from '../../agents/registry.js';
import type { Config } from '../../config/config-schema.js';
import type { VerifierType } from '../../contract/task-schema.js';
import { commandExecutable } from '../../process/command-string.js';
import { findExecutable } from '../../process/find-executable.js';
import { runProcess } from '../../process/spawn.js';
import { resolveBrowserPath } from '../../verifiers/playwright/browser-path.js';
import { PLAYWRIGHT_SUPPORTED, playwrightSupport, playwrightVersion } from '../../verifiers/playwright/playwright-version.js';
import { playwrightCommand } from '../../verifiers/playwright/run-playwright.js';
import { describeError } from '../../errors.js';
import { fail, ok, warn, type DoctorCheck } from './doctor-check.js';

const MIN_NODE = 20;

/** Node ≥ 20. */
export function checkNode(version = process.versions.node): DoctorCheck {
  const major = Number(version.split('.')[0]);
  if (major >= MIN_NODE) return ok('node', `Node ${version}`);
  return fail('node', `Node ${version} is too old`, `install Node ${MIN_NODE} or newer`);
}

/** The first line a tool prints for `args`, or why it could not. */
export async function toolOutput(
  command: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ ok: boolean; line: string }> {
  const result = await runProcess(command, args, { cwd, env, timeoutMs: 20_000, keepBytes: 4096 });
  if (result.spawnError) return { ok: false, line: describeError(result.spawnError) };
  if (result.timedOut) return { ok: false, line: 'did not answer within 20s' };
  const line = (result.stdoutTail.trim() || result.stderrTail.trim()).split('\n')[0] ?? '';
  return { ok: result.exitCode === 0, line: result.exitCode === 0 ? line : `exit code ${result.exitCode}${line ? `: ${line}` : ''}` };
}

/** git on PATH and its version. */
export async function checkGit(cwd: string, env: NodeJS.ProcessEnv): Promise<DoctorCheck> {
  const version = await toolOutput('git', ['--version'], cwd, env);
  return version.ok ? ok('git', version.line) : fail('git', `git does not run (${version.line})`, 'install git and put it on PATH');
}

/** The verifier's executable answers `--version`; for Kane, also whether it can log in. */
export async function checkVerifier(type: VerifierType, config: Config, root: string, env: NodeJS.ProcessEnv): Promise<DoctorCheck[]> {
  const verifierEnv = { ...env, ...config.verifier.env };
  if (type === 'playwright') {
    const { command, args } = playwrightCommand(root, config.verifier.command);
    // npx takes a --version after the package name as its own (it prints npm's version): `--` ends its options.
    const viaNpx = path.basename(command) === 'npx';
    const argv = viaNpx
      ? [...args.filter((a) => a.startsWith('-')), '--', ...args.filter((a) => !a.startsWith('-')), '--version']
      : [...args, '--version'];
    const version = await toolOutput(command, argv, root, verifierEnv);
    if (!version.ok)
      return [
        fail(
          'verifier',
          `playwright does not run (${version.line})`,
          'add it to the project: npm install -D @playwright/test (or set verifier.command)',
        ),
      ];
    return [ok('verifier', `playwright: ${version.line}`), await checkPlaywrightVersion(root, version.line)];
  }
  const configured = commandExecutable(config.verifier.command ?? (type === 'kane' ? 'kane-cli' : ''));
  if (!configured) {
    const fix = 'set verifier.command to the executable that speaks the Elenchos event protocol (docs/command-verifier.md)';
    return [fail('verifier', 'verifier.type "command" has no verifier.command', fix)];
  }
  const found = await findExecutable(configured, { cwd: root, pathEnv: env.PATH });
  if (!found) {
    const fix =
      type === 'kane'
        ? 'install it with `npm install -g @testmuai/kane-cli` (or set verifier.command)'
        : 'install it or fix verifier.command';
    return [fail('verifier', `verifier executable "${configured}" not found (verifier.type ${type})`, fix)];
  }
  if (type !== 'kane') return [ok('verifier', `${type}: ${found}`)];
  const version = await toolOutput(found, ['--version'], root, verifierEnv);
  if (!version.ok)
    return [fail('verifier', `kane-cli --version failed (${version.line})`, 'reinstall it: npm install -g @testmuai/kane-cli')];
  return [ok('verifier', `kane-cli ${version.line} (${found})`), await checkKaneLogin(found, root, verifierEnv)];
}

/**
 * @playwright/test inside the supported range (docs/playwright.md, "Playwright versions"): the version the
 * project resolves, else the one the runner printed. Outside it Elenchos still runs, so it is a warning.
 */
export async function checkPlaywrightVersion(root: string, printed: string): Promise<DoctorCheck> {
  const version = (await playwrightVersion(root)) ?? printed;
  const range = `>=${PLAYWRIGHT_SUPPORTED.oldest}, tested up to ${PLAYWRIGHT_SUPPORTED.newestTested}`;
  switch (playwrightSupport(version)) {
    case 'supported':
      return ok('playwright', `@playwright/test ${version} (supported: ${range})`);
    case 'too-old':
      return warn(
        'playwright',
        `@playwright/test ${version} is older than Elenchos supports (${range}): its report, listing or traces may be read wrongly`,
        'upgrade it: npm install -D @playwright/test@latest',
      );
    case 'newer-than-tested':
      return warn(
        'playwright',
        `@playwright/test ${version} is newer than Elenchos was tested with (${range}): a changed report or trace format may lose findings or pictures`,
        `pin the newest tested one (npm install -D @playwright/test@${PLAYWRIGHT_SUPPORTED.newestTested}), or upgrade Elenchos`,
      );
    default:
      return warn(
        'playwright',
        `cannot tell the @playwright/test version (${version})`,
        'add it to the project: npm install -D @playwright/test',
      );
  }
}

// Basic auth from the environment is what CI uses (docs/kane.md); elsewhere `kane-cli whoami` tells.
async function checkKaneLogin(kane: string, root: string, env: NodeJS.ProcessEnv): Promise<DoctorCheck> {
  if (env.LT_USERNAME && env.LT_ACCESS_KEY) return ok('kane login', 'credentials from LT_USERNAME and LT_ACCESS_KEY');
  const whoami = await toolOutput(kane, ['whoami'], root, env);
  if (whoami.ok) return ok('kane login', `logged in${whoami.line ? `: ${whoami.line}` : ''}`);
  return fail(
    'kane login',
    `kane-cli is not logged in (whoami: ${whoami.line})`,
    'run `kane-cli login`, or set LT_USERNAME and LT_ACCESS_KEY',
  );
}

/** A Chromium the verifier can launch. */
export async function checkChromium(type: VerifierType, config: Config, root: string, env: NodeJS.ProcessEnv): Promise<DoctorCheck> {
  if (type === 'playwright') {
    const browser = resolveBrowserPath(config.verifier.browserPath, env);
    if (browser) {
      if (existsSync(browser)) return ok('chromium', browser);
      return fail(
        'chromium',
        `${browser} does not exist`,
        'fix verifier.browserPath / ELENCHOS_BROWSER_PATH, or remove it to use the system Chromium',
      );
    }
    const cache = env.PLAYWRIGHT_BROWSERS_PATH || path.join(env.HOME ?? accountHome() ?? '/', '.cache', 'ms-playwright');
    const own = safeList(cache).find((name) => name.startsWith('chromium'));
    if (own) return ok('chromium', `Playwright's own ${own} in ${cache}`);
    return fail('chromium', 'no Chromium found', 'install one: sudo apt-get install chromium, or npx playwright install chromium');
  }
  const fromEnv = env.KANE_CLI_CHROME_PATH;
  if (fromEnv && existsSync(fromEnv)) return ok('chromium', `${fromEnv} (KANE_CLI_CHROME_PATH)`);
  if (fromEnv)
    return fail(
      'chromium',
      `KANE_CLI_CHROME_PATH names ${fromEnv}, which does not exist`,
      'point KANE_CLI_CHROME_PATH at a Chrome or Chromium, or unset it',
    );
  for (const name of ['google-chrome', 'chromium', 'chromium-browser']) {
    const found = await findExecutable(name, { cwd: root, pathEnv: env.PATH });
    if (found) return ok('chromium', found);
  }
  const fix =
    'kane-cli downloads its own browser unless told not to; on a locked-down machine install one (sudo apt-get install chromium) and set KANE_CLI_CHROME_PATH';
  return warn('chromium', 'no Chrome or Chromium on PATH', fix);
}

/** The agent's executable can be found. */
export async function checkAgent(config: Config, root: string, env: NodeJS.ProcessEnv): Promise<DoctorCheck> {
  if (config.agent.type === 'command' && !config.agent.command) {
    return fail(
      'agent',
      'agent.type "command" has no agent.command',
      'set agent.command to the executable that takes the prompt on stdin (docs/agents.md)',
    );
  }
  const { command } = agentAdapter(config.agent.type).command(config.agent);
  const found = await findExecutable(command, { cwd: root, pathEnv: env.PATH });
  if (found) return ok('agent', `${config.agent.type}: ${found}`);
  return fail(
    'agent',
    `agent executable "${command}" not found (agent.type ${config.agent.type})`,
    `${agentNotFoundFix(command)} (only \`elenchos run\` needs an agent; \`verify\` does not)`,
  );
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
