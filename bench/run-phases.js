#!/usr/bin/env node
// Where a warm `elenchos run` of a no-op Kane task spends its wall time, phase by phase, on repositories of
// 10,000 and 30,000 files (docs/performance.md#start-up-and-a-runs-phases). The CLI runs as a user runs it; every line it
// prints is stamped as it arrives, and the time between two lines is charged to the phase the later line
// ends. The start-up before the first line and the exit after the last are phases of their own. Preflight
// and the contract lock print no line of their own (both come before the run's header): each is also timed
// in this process, by calling it alone, to split that interval. Beside each repository the floor
// (`git worktree add --detach` + `remove`) is timed, interleaved with the runs, and the whole run's ratio to it printed.
// The agent is /bin/true, the app a one-line node server, the verifier the fake kane-cli passing at once.
// Usage: npm run build && node bench/run-phases.js [files=10000,30000] [runs=5]
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { performance } from 'node:perf_hooks';
import { makeRepo, median, timeOnce, oneKaneTask } from './lib.js';

const sizes = (process.argv[2] ?? '10000,30000').split(',').map(Number);
const runs = Number(process.argv[3] ?? 5);
const dist = process.env.ELENCHOS_DIST ?? fileURLToPath(new URL('../dist', import.meta.url));
const bin = path.join(dist, '..', 'bin', 'elenchos.js');
const extra = oneKaneTask({ type: 'command', command: '/bin/true' });

/** The phase a printed line ends (the time since the line before is its cost), or null for lines that end none. */
const PHASES = [
  [/checking the config, the contract and the checkout$/, 'start-up (node, the CLI, commander)'],
  [/^elenchos run \S+ \(/, 'preflight + contract lock + run record'],
  [/worktree +(warm|fresh|created)/, 'worktree take'],
  [/attempt 1$/, 'attempt start'],
  [/agent +dispatch/, 'agent start'],
  [/agent +ended/, 'agent'],
  [/contract checking the contract lock/, 'after the agent: guards'],
  [/snapshot +workspace/, 'contract lock check + snapshot'],
  [/app +starting/, 'after the snapshot'],
  [/app +ready/, 'app'],
  [/verifier +kane on/, 'verifier start'],
  [/stop +stopping the app/, 'verifier'],
  [/attempt 1 → /, 'stop + post-checks + attempt seal'],
  [/cleanup +worktree .* (returned|removed)/, 'pool return'],
  [/^(VERIFIED|FAILED|ERROR) in/, 'run seal'],
];
const phaseOf = (line) => PHASES.find(([pattern]) => pattern.test(line))?.[1] ?? null;

/** One CLI run: [phase, ms] in order, the first line's delay, the exit's delay after the last line. */
function timedRun(root, env) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, [bin, 'run', 'tasks/t.json'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const phases = [];
    let last = start;
    let firstLine = null;
    let pending = '';
    let output = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      const now = performance.now();
      output += chunk;
      const lines = (pending + chunk).split('\n');
      pending = lines.pop();
      for (const line of lines) {
        firstLine ??= now - start;
        const phase = phaseOf(line.replace(/^\[[\d:.]+\] +/, ''));
        if (phase === null) continue;
        phases.push([phase, now - last]);
        last = now;
      }
    });
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const exit = performance.now() - last;
      if (code !== 0) reject(new Error(`run exited ${code}:\n${output.slice(-3000)}`));
      else resolve({ phases, firstLine, exit, total: performance.now() - start });
    });
  });
}

const run = promisify(execFile);
const { preflight } = await import(path.join(dist, 'core/run/preflight.js'));
const { lockContract } = await import(path.join(dist, 'core/lock/contract-lock.js'));
const { withGitEnvironment } = await import(path.join(dist, 'git/git.js'));
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

for (const files of sizes) {
  console.log(`\n${files} files: creating the repository...`);
  const { root, cleanup } = makeRepo(files, 'elenchos-bench-phases-', extra);
  const home = mkdtempSync(path.join(tmpdir(), 'elenchos-bench-home-'));
  const env = { ...process.env, HOME: home };
  try {
    await timedRun(root, env); // fills the pool: every measured run is warm
    const byPhase = new Map();
    const [floor, totals, firsts, exits, pre, lock] = [[], [], [], [], [], []];
    const loads = [load()];
    for (let i = 0; i < runs; i++) {
      const dir = path.join(root, '.elenchos', 'floor');
      floor.push(
        await timeOnce(async () => {
          await run('git', ['worktree', 'add', '--quiet', '--detach', dir, 'HEAD'], { cwd: root });
          await run('git', ['worktree', 'remove', '--force', dir], { cwd: root });
        }),
      );
      const one = await timedRun(root, env);
      for (const [phase, ms] of one.phases) byPhase.set(phase, [...(byPhase.get(phase) ?? []), ms]);
      totals.push(one.total);
      firsts.push(one.firstLine);
      exits.push(one.exit);
      let pf;
      pre.push(
        await timeOnce(async () => {
          pf = await withGitEnvironment(env, () =>
            preflight({ cwd: root, taskFile: 'tasks/t.json', env, needsAgent: true, costCap: true, requireClean: true }),
          );
        }),
      );
      lock.push(
        await timeOnce(() =>
          withGitEnvironment(env, () =>
            lockContract({ root, taskLabel: pf.resolved.label, testLabel: pf.resolved.testFileLabel, extra: pf.extraInputs }),
          ),
        ),
      );
      loads.push(load());
    }
    const ms = (x) => `${x.toFixed(0).padStart(6)} ms`;
    console.log(`warm run of a no-op Kane task, ${files} files, median of ${runs} (load ${loads[0]} … ${loads.at(-1)})`);
    for (const [phase, values] of byPhase) console.log(`${ms(median(values))}  ${phase}`);
    console.log(`${ms(median(exits))}  exit after the last line`);
    console.log(
      `  of which, timed alone in this process: preflight ${median(pre).toFixed(0)} ms, contract lock ${median(lock).toFixed(0)} ms`,
    );
    const pairs = totals.map((t, i) => t / floor[i]);
    console.log(
      `first line after ${median(firsts).toFixed(0)} ms (target ≤ 500), exit ${median(exits).toFixed(0)} ms after the last line (target ≤ 500)`,
    );
    console.log(
      `whole run ${ms(median(totals))}, floor (git worktree add + remove) ${ms(median(floor))}: ratio of medians ${(median(totals) / median(floor)).toFixed(2)}x, median pair ${median(pairs).toFixed(2)}x (pairs ${pairs.map((p) => p.toFixed(2)).join(' ')}; target ${files >= 30000 ? '≤ 0.5x' : '≤ 1.0x'})`,
    );
  } finally {
    cleanup();
    rmSync(home, { recursive: true, force: true });
  }
}
