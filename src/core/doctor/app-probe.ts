// Doctor's real probe: the configured app, started on HEAD in a fresh worktree exactly as a run starts it.
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../config/config-schema.js';
import { headCommit } from '../../git/status.js';
import { addWorktree, ensureExcluded, removeWorktree } from '../../git/worktree.js';
import { freePort } from '../../process/free-port.js';
import { startApp, type AppStart } from '../app.js';
import { appEnvironment } from '../app-env.js';
import { prepareWorktree } from '../setup.js';
import { fail, ok, type DoctorCheck } from './doctor-check.js';

export interface AppProbeOptions {
  root: string;
  config: Config;
  configLabel: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
}

/** Where the probe keeps its logs (inside .elenchos/, which git ignores). */
export const DOCTOR_DIR = '.elenchos/doctor';

/** Starts the app on HEAD in a temporary worktree (setup first), waits for it, stops it; always removes the worktree. */
export async function probeApp(options: AppProbeOptions): Promise<DoctorCheck> {
  const { root, config, configLabel } = options;
  if (!config.app.command) {
    return fail(
      'app',
      'app.command is not set',
      `set app.command in ${configLabel} to the command that starts your app on {port}, e.g. "npm run dev -- --port {port}"`,
    );
  }
  const head = await headCommit(root).catch(() => null);
  if (head === null) return fail('app', 'the repository has no commit: the app cannot be started on HEAD', 'commit your project first');
  await ensureExcluded(root);
  const logs = path.join(root, DOCTOR_DIR);
  await mkdir(logs, { recursive: true });
  const workspace = path.join(root, '.elenchos', 'workspaces', `doctor-${Date.now()}-${randomBytes(3).toString('hex')}`);
  await addWorktree(root, workspace, head);
  try {
    const setupProblem = await runSetup(options, workspace, path.join(logs, 'setup.log'));
    if (setupProblem) return setupProblem;
    const port = config.app.port === 0 ? await freePort() : config.app.port;
    const url = config.app.url.replaceAll('{port}', String(port));
    const command = config.app.command.replaceAll('{port}', String(port));
    const logFile = path.join(logs, 'app.log');
    const start = await startApp({
      command,
      url,
      cwd: workspace,
      env: appEnvironment(config, options.env, port, url),
      readyTimeoutMs: config.app.readyTimeoutSeconds * 1000,
      logFile,
      signal: options.signal,
    });
    if (start.ok) {
      await start.app.stop();
      return ok('app', `\`${command}\` answered at ${url} in ${start.readyMs} ms (HEAD ${head.slice(0, 12)}, fresh worktree)`);
    }
    return appFailure(start, config, configLabel, path.relative(root, logFile));
  } finally {
    await removeWorktree(root, workspace);
  }
}

function appFailure(start: Exclude<AppStart, { ok: true }>, config: Config, configLabel: string, logFile: string): DoctorCheck {
  if (start.reason === 'APP_URL_IN_USE')
    return fail('app', start.message, 'stop whatever serves that URL, or set app.port to 0 and use {port} in app.url');
  const tail = 'logTail' in start && start.logTail ? start.logTail.split('\n').map((line) => `app log: ${line}`) : ['app log: (empty)'];
  const details = [...tail, `whole log: ${logFile}`];
  if (start.reason === 'APP_NOT_READY') {
    // The commonest newcomer mistake: a fixed port in the command while the URL follows {port}.
    const noPort = config.app.url.includes('{port}') && !config.app.command?.includes('{port}') ? 'app.command has no {port}: ' : '';
    const fix = `${noPort}make app.command in ${configLabel} listen on {port} (replaced by a free port) or read PORT, and app.url answer once ready`;
    return fail('app', start.message, `${fix}; or raise app.readyTimeoutSeconds`, details);
  }
  if (start.reason === 'APP_EXITED') {
    return fail(
      'app',
      start.message,
      `fix app.command in ${configLabel} (the log says why it stopped), or what it needs first: setup.command, setup.copy (e.g. .env)`,
      details,
    );
  }
  return fail('app', start.message, `fix app.command in ${configLabel}`, details);
}

// The run's setup, in the probe's worktree: setup.copy, then setup.command.
async function runSetup(options: AppProbeOptions, workspace: string, logFile: string): Promise<DoctorCheck | null> {
  const { setup } = options.config;
  const outcome = await prepareWorktree({
    root: options.root,
    workspace,
    setup,
    env: options.env,
    signal: options.signal,
    logFile,
    label: options.configLabel,
  });
  if (outcome.ok) return null;
  if (outcome.step === 'copy') return fail('setup', outcome.message, `create ${outcome.file} in the checkout or remove it from setup.copy`);
  const why = outcome.timedOut ? `did not finish within ${setup.timeoutSeconds}s` : outcome.message.replace(/^setup\.command /, '');
  const tail = outcome.logTail
    .split('\n')
    .filter(Boolean)
    .map((line) => `setup log: ${line}`);
  return fail(
    'setup',
    `setup.command \`${setup.command}\` ${why}`,
    `fix setup.command in ${options.configLabel} (or raise setup.timeoutSeconds)`,
    tail,
  );
}
