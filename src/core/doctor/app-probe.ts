// Doctor's real probe: the configured app, started on HEAD in a fresh worktree exactly as a run starts it.
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import { appWriteGlobs, declaredFolders } from '../../config/app-writes.js';
import type { Config } from '../../config/config-schema.js';
import { fillPort, PORT_PLACEHOLDER } from '../../config/port-placeholder.js';
import { describeError } from '../../errors.js';
import { headCommit } from '../../git/status.js';
import { digestInCommit } from '../../git/path-digest.js';
import { watchWindow, writtenByContent, type WindowReport } from '../../git/window-watch.js';
import { addWorktree, ensureExcluded, removeWorktree } from '../../git/worktree.js';
import { freePort } from '../../process/free-port.js';
import { BROWSER_ACCEPT, probeUrl, type ProbeResult } from '../../process/url-probe.js';
import { globMatcher } from '../../util/glob-match.js';
import { secretPathsToHide } from '../../util/secret-paths.js';
import { startApp, type AppStart } from '../app/app.js';
import { appEnvironment } from '../app/app-env.js';
import { appSandboxed } from '../app/app-sandbox.js';
import { prepareWorktree } from '../workspace/setup.js';
import { APP_WRITES_CHECK, appWriteFindings, type WrittenPath } from './app-writes-findings.js';
import { fail, ok, warn, type DoctorCheck } from './doctor-check.js';
import { attemptPaths, DOCTOR_DIR, workspacesDir } from '../../evidence/layout.js';

export interface AppProbeOptions {
  root: string;
  config: Config;
  configLabel: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  /** Files a run of the configured tasks locks: the app rewriting one is not an `app.writes` entry. */
  locked?: readonly string[];
}

// How long the page request may take: a dev server may compile the page on this first request.
const PAGE_TIMEOUT_MS = 30_000;

/** Where the probe keeps its logs (inside .elenchos/, which git ignores). */
export { DOCTOR_DIR };

/**
 * Starts the app on HEAD in a temporary worktree (setup first), waits for it, sends it one request and
 * stops it, watching the worktree all along as a run's verifier window does: every path the app wrote
 * that `app.writes` and the built-in list do not cover comes back with the entry to add. Always removes
 * the worktree.
 */
export async function probeApp(options: AppProbeOptions): Promise<DoctorCheck[]> {
  const { root, config, configLabel } = options;
  if (!config.app.command) {
    return [
      fail(
        'app',
        'app.command is not set',
        `set app.command in ${configLabel} to the command that starts your app on {port}, e.g. "npm run dev -- --port {port}"`,
      ),
    ];
  }
  const head = await headCommit(root).catch(() => null);
  if (head === null) return [fail('app', 'the repository has no commit: the app cannot be started on HEAD', 'commit your project first')];
  await ensureExcluded(root);
  const logs = path.join(root, DOCTOR_DIR);
  await mkdir(logs, { recursive: true });
  // Each doctor run's logs are its own: appended to across runs, they read as one start with no line between.
  await Promise.all([attemptPaths(logs).setupLog, attemptPaths(logs).appLog].map((file) => rm(file, { force: true })));
  const workspace = path.join(workspacesDir(root), `doctor-${Date.now()}-${randomBytes(3).toString('hex')}`);
  await addWorktree(root, workspace, head);
  try {
    const setupProblem = await runSetup(options, workspace, attemptPaths(logs).setupLog);
    if (setupProblem) return [setupProblem];
    const port = config.app.port === 0 ? await freePort() : config.app.port;
    const url = fillPort(config.app.url, port);
    const command = fillPort(config.app.command, port);
    const logFile = attemptPaths(logs).appLog;
    // Watched from before the app starts until it is stopped, with the run's own rules (core/run/phases/app-and-verifier.ts).
    const globs = appWriteGlobs(config.app.writes);
    const watch = await watchWindow(workspace, { skip: globMatcher(globs), folders: declaredFolders(globs) }).catch((error: unknown) =>
      describeError(error),
    );
    const env = appEnvironment(config, options.env, port, url);
    const start = await startApp({
      command,
      url,
      cwd: workspace,
      env,
      // Hidden as in a run (core/run/phases/app-and-verifier.ts): doctor starts the agent's app too.
      sandbox: appSandboxed(config) ? { checkout: root, home: env.HOME, hidden: secretPathsToHide(options.env) } : null,
      readyTimeoutMs: config.app.readyTimeoutSeconds * 1000,
      logFile,
      signal: options.signal,
    });
    let appCheck: DoctorCheck;
    if (start.ok) {
      // The request a verifier's first page load makes, asked as a browser asks: an app that creates its
      // data on first use does it now.
      const answer = await probeUrl(url, PAGE_TIMEOUT_MS, BROWSER_ACCEPT);
      await start.app.stop();
      appCheck = pageCheck(answer, `\`${command}\` answered at ${url} in ${start.readyMs} ms`, `HEAD ${head.slice(0, 12)}, fresh worktree`);
    } else {
      appCheck = appFailure(start, config, configLabel, path.relative(root, logFile));
    }
    if (typeof watch === 'string') {
      const fix = 'runs watch their worktree the same way and end INCONCLUSIVE without it; on ENOSPC raise fs.inotify.max_user_watches';
      return [appCheck, warn(APP_WRITES_CHECK, `the worktree could not be watched while the app ran: ${watch}`, fix)];
    }
    // Judged as a run judges them: by content (a same-bytes rewrite, a folder of ignored files only, is no write).
    const report = await watch.close();
    const judged = { ...report, written: await writtenByContent(workspace, report, (p) => digestInCommit(workspace, head, p)) };
    const writes = await describeWrites(workspace, judged, config.app.writes, configLabel, options.locked ?? []);
    // An app that never answered wrote less than it will: only what it did write is worth a line.
    return [appCheck, ...(start.ok ? writes : writes.filter((c) => c.status !== 'ok'))];
  } finally {
    await removeWorktree(root, workspace);
  }
}

// What the window saw, read while the worktree still exists (a folder, a file, or gone again).
async function describeWrites(
  workspace: string,
  report: WindowReport,
  declared: string[],
  configLabel: string,
  locked: readonly string[],
): Promise<DoctorCheck[]> {
  const written: WrittenPath[] = [];
  for (const p of report.written) {
    const stat = await lstat(path.join(workspace, p)).catch(() => null);
    if (stat === null) written.push({ path: p, kind: 'gone' });
    else if (!stat.isDirectory()) written.push({ path: p, kind: 'file' });
    else {
      // The watch does not look inside a folder nobody declared (any write there ends a run): listed here.
      const holds = await fg('**', { cwd: path.join(workspace, p), dot: true, followSymbolicLinks: false });
      written.push({ path: p, kind: 'folder', holds: holds.sort().map((f) => `${p}/${f}`) });
    }
  }
  const checks = appWriteFindings(written, declared, configLabel, locked);
  if (report.ok) return checks;
  const problem = warn(APP_WRITES_CHECK, `${report.problem}: the app may have written more`, 'runs would end INCONCLUSIVE the same way');
  return [problem, ...checks.filter((c) => c.status !== 'ok')];
}

/**
 * The app line once it started: ✓ only when the page a browser would load answers 2xx or 3xx. A 4xx is
 * a page the tests will not find (a warning: a spec may open another path), a 5xx or no answer a failure.
 */
export function pageCheck(answer: ProbeResult, started: string, where: string): DoctorCheck {
  // No answer in time may be a dev server compiling its first page: worth a look, not yet a failure.
  if (!answer.answered)
    return warn(
      'app',
      `${started}, but gave no answer to a page request within ${PAGE_TIMEOUT_MS / 1000} s (${answer.error}) (${where})`,
      'see the app log; a first page that takes this long to compile makes the first test slow too',
    );
  const status = `HTTP ${answer.status} to a page request`;
  if (answer.status < 400) return ok('app', `${started}, then ${status} (${where})`);
  if (answer.status < 500)
    return warn(
      'app',
      `${started}, but ${status} (${where})`,
      'point app.url at a page the app serves (the tests navigate relative to it), or check that it serves one there',
    );
  return fail('app', `${started}, but ${status} (${where})`, 'the app fails on its own page: see the app log');
}

function appFailure(start: Exclude<AppStart, { ok: true }>, config: Config, configLabel: string, logFile: string): DoctorCheck {
  if (start.reason === 'APP_URL_IN_USE')
    return fail('app', start.message, 'stop whatever serves that URL, or set app.port to 0 and use {port} in app.url');
  const tail = 'logTail' in start && start.logTail ? start.logTail.split('\n').map((line) => `app log: ${line}`) : ['app log: (empty)'];
  const details = [...tail, `whole log: ${logFile}`];
  if (start.reason === 'APP_NOT_READY') {
    // The commonest newcomer mistake: a fixed port in the command while the URL follows {port}.
    const noPort =
      config.app.url.includes(PORT_PLACEHOLDER) && !config.app.command?.includes(PORT_PLACEHOLDER) ? 'app.command has no {port}: ' : '';
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
    sandboxed: appSandboxed(options.config),
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
