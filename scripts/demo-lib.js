// Shared by scripts/demo.js and scripts/demo-kane.js: find a browser, build a throwaway demo repository,
// run the built CLI there and point at the evidence.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, realpathSync, symlinkSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const BIN = path.join(ROOT, 'bin', 'elenchos.js');

/** Parses `--json`, `--quiet`, `--keep`, `--task <id>` and `--dir <path>`. */
export function parseArgs(argv) {
  const options = { json: false, quiet: process.env.ELENCHOS_DEMO_QUIET === '1', keep: false, task: 'priority-badge', dir: null };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--json') options.json = true;
    else if (arg === '--quiet') options.quiet = true;
    else if (arg === '--keep') options.keep = true;
    else if (arg === '--task') options.task = argv[++i];
    else if (arg === '--dir') options.dir = argv[++i];
    else if (arg === '--help' || arg === '-h') {
      console.log(
        'usage: node scripts/demo.js [--task priority-badge|delete-task|add-task] [--dir <empty dir>] [--json] [--quiet] [--keep]',
      );
      process.exit(0);
    } else {
      console.error(`demo: unknown option ${arg} (try --help)`);
      process.exit(3);
    }
  }
  return options;
}

/** A Chromium to run the demo with: { path, source }, or null. */
export function findChromium(env = process.env) {
  if (env.ELENCHOS_BROWSER_PATH)
    return existsSync(env.ELENCHOS_BROWSER_PATH) ? { path: env.ELENCHOS_BROWSER_PATH, source: 'ELENCHOS_BROWSER_PATH' } : null;
  for (const candidate of ['/usr/bin/chromium', '/usr/bin/chromium-browser'])
    if (existsSync(candidate)) return { path: candidate, source: 'system' };
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    for (const name of ['chromium', 'chromium-browser']) {
      const candidate = path.join(dir, name);
      if (existsSync(candidate)) return { path: candidate, source: 'PATH' };
    }
  }
  // Playwright's own download (`npx playwright install chromium`): Playwright finds it itself.
  const cache = env.PLAYWRIGHT_BROWSERS_PATH || path.join(homedir(), '.cache', 'ms-playwright');
  try {
    if (readdirSync(cache).some((name) => /^chromium(_headless_shell)?-\d+$/.test(name)))
      return { path: null, source: `Playwright's cache (${cache})` };
  } catch {
    // no cache
  }
  return null;
}

export function explainMissingChromium() {
  console.error(`demo: no Chromium found. The demo drives a real browser; get one of:
  - Debian/Ubuntu:  sudo apt-get install chromium
  - any system:     npx playwright install chromium
  - or point at one: ELENCHOS_BROWSER_PATH=/path/to/chrome npm run demo`);
}

/** True when `name` is an executable on PATH. */
export function onPath(name) {
  return (process.env.PATH ?? '').split(path.delimiter).some((dir) => dir && existsSync(path.join(dir, name)));
}

/** Copies demo/ into a fresh git repository (node_modules linked to Elenchos's, and git-ignored). */
export function makeDemoRepo(dir) {
  const repo = dir ? path.resolve(dir) : realpathSync(mkdtempSync(path.join(tmpdir(), 'elenchos-demo-')));
  if (existsSync(repo) && readdirSync(repo).length > 0) throw new Error(`${repo} is not empty`);
  cpSync(path.join(ROOT, 'demo'), repo, { recursive: true, filter: (source) => path.basename(source) !== 'node_modules' });
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(repo, 'node_modules'), 'dir');
  const git = (...args) => {
    const result = spawnSync('git', ['-c', 'user.name=Elenchos demo', '-c', 'user.email=demo@elenchos.invalid', ...args], {
      cwd: repo,
      encoding: 'utf8',
    });
    if (result.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${result.stderr}`);
  };
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'Todo app: the starting point of the Elenchos demo');
  return repo;
}

/** Runs `elenchos run <task>` in `repo`, streaming its output; resolves with its exit code. */
export function runElenchos(repo, args, { env, json, quiet }) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'run', ...args, ...(json ? ['--json'] : [])], {
      cwd: repo,
      env,
      stdio: ['ignore', json || quiet ? 'pipe' : 'inherit', quiet ? 'pipe' : 'inherit'],
    });
    let stdout = '';
    child.stdout?.on('data', (chunk) => (stdout += chunk));
    const forward = (signal) => child.kill(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('close', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve({ code: code ?? (signal === 'SIGINT' ? 130 : 2), stdout });
    });
  });
}

/** The newest run id under `<repo>/.elenchos/runs/` (run ids sort by time), or null. */
export function latestRunId(repo) {
  try {
    return (
      readdirSync(path.join(repo, '.elenchos', 'runs'))
        .sort()
        .at(-1) ?? null
    );
  } catch {
    return null;
  }
}

/** The whole demo: browser check, repository, run, and where to look. Returns the exit code. */
export async function runDemo({ argv, config, label }) {
  const options = parseArgs(argv);
  const log = (line) => (options.json ? console.error(line) : console.log(line));
  if (!existsSync(path.join(ROOT, 'dist', 'cli.js'))) {
    console.error('demo: Elenchos is not built; run `npm run demo` (it builds first) or `npm run build`');
    return 2;
  }
  const env = { ...process.env };
  const chromium = findChromium(env);
  if (label === 'playwright') {
    if (!chromium) {
      explainMissingChromium();
      return 1;
    }
    if (chromium.path) env.ELENCHOS_BROWSER_PATH = chromium.path;
  }
  const repo = makeDemoRepo(options.dir);
  const task = label === 'kane' ? `tasks/kane/${options.task}.json` : `tasks/${options.task}.json`;
  log(`demo: a todo app, committed in ${repo}`);
  if (chromium) log(`demo: browser: ${chromium.path ?? "Playwright's own"} (${chromium.source})`);
  log(`demo: $ elenchos run ${task}${config ? ` --config ${config}` : ''}`);
  log('');
  const args = [task, ...(config ? ['--config', config] : []), ...(options.keep ? ['--keep'] : [])];
  const { code, stdout } = await runElenchos(repo, args, { env, json: options.json, quiet: options.quiet });
  if (options.json) process.stdout.write(stdout);
  const runId = latestRunId(repo);
  const cli = `node ${BIN}`;
  log('');
  log(
    `demo: elenchos exited with ${code} (${{ 0: 'VERIFIED', 1: 'FAILED', 2: 'ERROR', 3: 'invalid input', 130: 'interrupted' }[code] ?? 'unexpected'})`,
  );
  log(`demo: run id: ${runId ?? '(none: no run was created)'}`);
  if (runId) {
    log(`demo: evidence: ${path.join(repo, '.elenchos', 'runs', runId)}`);
    // The evidence lives in the demo's repository, not in this clone: the README's tour commands
    // only find it from there, with \`elenchos\` meaning this clone's CLI.
    log("demo: follow the README's tour in the demo's repository (paste these two lines):");
    log(`  cd ${repo}`);
    log(`  alias elenchos='${cli}'`);
    log('demo: then:');
    log('  elenchos runs');
    log(`  elenchos show ${runId}`);
    log(`  elenchos report ${runId}`);
    log('  elenchos evidence verify latest');
    if (code === 0) log(`  elenchos apply ${runId} --commit   # take the verified change into the demo's checkout`);
  }
  return code;
}
