#!/usr/bin/env node
// The setup cache and the worktree pool on a real setup: `elenchos verify` of 8 tasks, --workers 4, on a small web app whose setup is a real `npm ci` from
// the npm cache already on this machine (--offline, no network), for each dependency set asked for:
//   small:   5 direct packages (commander, zod, fast-glob, execa, tar), 49 installed, ~1,700 files
//   webapp:  what a small web app declares (express; vite, vitest, typescript, eslint for its build and
//            tests), ~200 installed, ~2,600 files, ~80 MB: "a lockfile with hundreds of packages"
// Both lockfiles are cut from this project's own package-lock.json (the packages reachable from the chosen
// direct dependencies, as npm resolved them), so every tarball is in the local npm cache.
//   warm:   setup.cache entry present and the worktree pool warm (each task takes a warm worktree whose
//           kept node_modules is checked against the entry, or restores it, instead of running npm ci)
//   naive:  no setup.cache and --fresh (a fresh worktree + npm ci per task, as before the cache and the pool)
//   new dependency: the lockfile changed (the agent added one), so every task's key misses:
//           the first does npm ci and saves, the others wait for it and restore (vs naive on that commit)
//   one-task miss: a single verify whose key misses (npm ci + save) vs the same without the cache
//   setup phase alone, one worktree: npm ci vs a restore (copy + check) vs kept paths checked (a warm
//           worktree of the pool keeps node_modules; only files whose stat signature changed are re-read)
// Each verify also reports the CPU it took (its own and its children's), less noisy than wall time on a
// shared machine. Goals: warm >= 5x faster than naive; a miss no slower than today.
// Usage: npm run build && node bench/setup-cache.js [verifierStepMs=200] [rounds=1] [--deps=small,webapp] [--warm-only | --miss-only]
//   --miss-only: only the one-task miss against naive, `rounds` times interleaved (the miss's copy runs in the background)
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEPENDENCY_SETS, gitSync, lockfileFor, makeRepo, median, oneStepTasks, timeOnce } from './lib.js';
import { beginCachedSetup } from '../dist/core/workspace/setup-cache.js';

const positional = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const depsFlag = process.argv.find((arg) => arg.startsWith('--deps='));
const stepMs = Number(positional[0] ?? 200);
const rounds = Number(positional[1] ?? 1);
// --warm-only: the goal's comparison alone (naive vs warm), without the miss arms and the setup phase.
const warmOnly = process.argv.includes('--warm-only');
const missOnly = process.argv.includes('--miss-only');
const sets = (depsFlag ? depsFlag.slice('--deps='.length) : 'small,webapp').split(',');
// ELENCHOS_BIN: another build's bin/elenchos.js (a clone of main, built) for a before/after run side by side.
const bin = process.env.ELENCHOS_BIN ?? fileURLToPath(new URL('../bin/elenchos.js', import.meta.url));
const fakeKane = fileURLToPath(new URL('../test/fixtures/bin/kane-cli', import.meta.url));
// The machine's npm cache (HOME is a temp dir for the fake Kane): packages come from here, never the network.
const npmCache = process.env.npm_config_cache ?? path.join(homedir(), '.npm');
const npmEnv = {
  ...process.env,
  npm_config_cache: npmCache,
  npm_config_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
};
const added = ['simple-git'];
for (const set of sets) if (!DEPENDENCY_SETS[set]) throw new Error(`--deps: unknown set ${set} (small, webapp)`);

const server = "require('http').createServer((q,r)=>r.end('ok')).listen(Number(process.argv[1]),'127.0.0.1')";
const configFor = (cache) =>
  JSON.stringify({
    app: { command: `node -e "${server}" {port}` },
    setup: {
      command: 'npm ci --offline --no-audit --no-fund',
      timeoutSeconds: 300,
      ...(cache ? { cache: { key: ['package-lock.json'], paths: ['node_modules'] } } : {}),
    },
    verifier: { type: 'kane', command: fakeKane, env: { FAKE_KANE_SCENARIO: 'pass', FAKE_KANE_STEP_DELAY_MS: String(stepMs) } },
  });

const ratio = (a, b) => `${(a / b).toFixed(2)}x`;
const ms = (x) => `${x.toFixed(0).padStart(6)} ms`;
const cpu = (x) => `cpu ${(x / 1000).toFixed(1).padStart(5)} s`;
/** CPU time of the children this process has reaped (a verify and everything it waited for), in ms. */
function childrenCpuMs() {
  const stat = readFileSync('/proc/self/stat', 'latin1');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10; // cutime + cstime, in clock ticks of 10 ms
}
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');

console.log(`load average at start: ${load()}`);
for (const set of sets) await benchSet(set, DEPENDENCY_SETS[set]);
console.log(`load average at end: ${load()}`);

async function benchSet(set, deps) {
  const extra = {
    ...lockfileFor(deps),
    '.gitignore': 'node_modules\n',
    ...oneStepTasks(8),
  };
  const installed = Object.keys(JSON.parse(extra['package-lock.json']).packages).length - 1;
  // Two checkouts of one history: the same commits, one configured with the cache, one without.
  const {
    base,
    root: cached,
    cleanup,
  } = makeRepo(100, 'elenchos-bench-setup-cache-', { ...extra, 'elenchos.config.json': configFor(true) });
  const naive = path.join(base, 'naive');
  gitSync(base, 'clone', '-q', cached, naive);
  writeFileSync(path.join(naive, 'elenchos.config.json'), configFor(false));
  gitSync(naive, '-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-qam', 'no setup cache');
  const home = path.join(base, 'home');
  mkdirSync(home);

  /** One verify: [wall ms, CPU ms of it and its children]. */
  function verify(root, tasks = []) {
    const start = process.hrtime.bigint();
    const cpuBefore = childrenCpuMs();
    const fresh = root === naive ? ['--fresh'] : []; // the naive way: no pool either
    const result = spawnSync(process.execPath, [bin, 'verify', '--workers', '4', ...fresh, ...tasks, '--json'], {
      cwd: root,
      env: { ...npmEnv, HOME: home },
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    if (result.status !== 0) throw new Error(`verify failed (${result.status}): ${result.stderr}${result.stdout.slice(-1500)}`);
    return [Number(process.hrtime.bigint() - start) / 1e6, childrenCpuMs() - cpuBefore];
  }

  function addDependency(root) {
    for (const [name, content] of Object.entries(lockfileFor([...deps, ...added]))) writeFileSync(path.join(root, name), content);
    gitSync(root, '-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-qam', `add ${added.join(', ')}`);
  }

  try {
    if (missOnly) {
      verify(cached); // fills the pool (not measured)
      const [naiveOne, missOne] = [[], []];
      for (let round = 0; round < rounds; round++) {
        rmSync(path.join(cached, '.elenchos/cache'), { recursive: true, force: true });
        // Alternating which arm goes first, so a neighbour's burst does not always land on the same one.
        const pair = [() => naiveOne.push(verify(naive, ['tasks/t2.json'])), () => missOne.push(verify(cached, ['tasks/t2.json']))];
        for (const arm of round % 2 ? pair.reverse() : pair) arm();
      }
      const [no, mo] = [naiveOne, missOne].map((runs) => median(runs.map((r) => r[0])));
      const [noc, moc] = [naiveOne, missOne].map((runs) => median(runs.map((r) => r[1])));
      console.log('');
      console.log(`[${set}] one task, verifier ${stepMs} ms/step; median of ${rounds} interleaved pairs`);
      console.log(
        `one task, naive                            ${ms(no)}  ${cpu(noc)}   [${naiveOne.map((r) => r[0].toFixed(0)).join(' ')}]`,
      );
      console.log(
        `one task, cache miss (npm ci + save)       ${ms(mo)}  ${cpu(moc)}   cost ${ratio(mo, no)} of naive (cpu ${ratio(moc, noc)}) [${missOne.map((r) => r[0].toFixed(0)).join(' ')}]`,
      );
      console.log(`per-pair ratios: ${missOne.map((m, i) => (m[0] / naiveOne[i][0]).toFixed(2)).join(' ')}`);
      console.log(`load average: ${load()}`);
      return;
    }
    const warm = [];
    const naiveTimes = [];
    const missAll = [];
    const naiveAfter = [];
    const missOne = [];
    const naiveOne = [];
    for (let round = 0; round < rounds; round++) {
      rmSync(path.join(cached, '.elenchos/cache'), { recursive: true, force: true });
      verify(cached); // fills the cache and the pool (not measured)
      // Side by side, alternating, so a noisy neighbour slows both alike.
      naiveTimes.push(verify(naive));
      warm.push(verify(cached));
      if (warmOnly) continue;
      // The agent's change adds a dependency: every key misses on the new lockfile.
      addDependency(cached);
      addDependency(naive);
      naiveAfter.push(verify(naive));
      missAll.push(verify(cached));
      // One task whose key misses: npm ci + save, against npm ci alone.
      rmSync(path.join(cached, '.elenchos/cache'), { recursive: true, force: true });
      naiveOne.push(verify(naive, ['tasks/t2.json']));
      missOne.push(verify(cached, ['tasks/t2.json']));
      for (const root of [cached, naive]) gitSync(root, 'reset', '-q', '--hard', 'HEAD~1');
    }
    const pick = (runs, i) => median(runs.map((r) => r[i]));
    const header = (files) =>
      `[${set}] verify of 8 tasks, --workers 4, setup \`npm ci --offline\` (${deps.length} direct deps: ${deps.join(', ')}; ${installed} in the lockfile${files}), verifier ${stepMs} ms/step; median of ${rounds}`;
    const goalLines = () => {
      const [n, w, nc, wc] = [pick(naiveTimes, 0), pick(warm, 0), pick(naiveTimes, 1), pick(warm, 1)];
      console.log(`naive (fresh worktree + npm ci per task)   ${ms(n)}  ${cpu(nc)}`);
      console.log(
        `setup cache warm                           ${ms(w)}  ${cpu(wc)}   speed-up ${ratio(n, w)} (cpu ${ratio(nc, wc)}) (goal >= 5x)`,
      );
    };
    if (warmOnly) {
      console.log('');
      console.log(header(''));
      goalLines();
      console.log(`load average: ${load()}`);
      return;
    }
    // The setup phase alone, in-process, side by side on one worktree.
    const tree = path.join(base, 'tree');
    gitSync(cached, 'worktree', 'add', '-q', '--detach', tree, 'HEAD');
    const spec = { command: 'npm ci --offline --no-audit --no-fund', key: ['package-lock.json'], paths: ['node_modules'] };
    const cacheDir = path.join(base, 'solo-cache');
    const lookup = () => beginCachedSetup({ cacheDir, workspace: tree, spec, signal: new AbortController().signal, waitMs: 60_000 });
    const first = await lookup();
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: tree, env: npmEnv, stdio: 'pipe' });
    if (first.kind === 'run') await (await first.save?.())?.done;
    const npmCi = [];
    const restore = [];
    const kept = [];
    for (let round = 0; round < 3; round++) {
      rmSync(path.join(tree, 'node_modules'), { recursive: true, force: true });
      npmCi.push(await timeOnce(() => execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: tree, env: npmEnv, stdio: 'pipe' })));
      rmSync(path.join(tree, 'node_modules'), { recursive: true, force: true });
      restore.push(await timeOnce(async () => expectHit(await lookup(), 'restored')));
      kept.push(await timeOnce(async () => expectHit(await lookup(), 'kept')));
    }
    const files = Number(
      execFileSync('find', [path.join(tree, 'node_modules'), '-type', 'f'], { encoding: 'utf8', maxBuffer: 1 << 28 }).split('\n').length -
        1,
    );
    const [ci, re, ke] = [npmCi, restore, kept].map(median);
    const [ma, na, mo, no] = [missAll, naiveAfter, missOne, naiveOne].map((runs) => pick(runs, 0));
    const [mac, nac, moc, noc] = [missAll, naiveAfter, missOne, naiveOne].map((runs) => pick(runs, 1));
    console.log('');
    console.log(header(`, ${files} files installed`));
    goalLines();
    console.log(`after adding a dependency: naive           ${ms(na)}  ${cpu(nac)}`);
    console.log(
      `after adding a dependency: cache (misses)  ${ms(ma)}  ${cpu(mac)}   cost ${ratio(ma, na)} of naive (cpu ${ratio(mac, nac)}) (goal <= 1x)`,
    );
    console.log(`one task, naive                            ${ms(no)}  ${cpu(noc)}`);
    console.log(
      `one task, cache miss (npm ci + save)       ${ms(mo)}  ${cpu(moc)}   cost ${ratio(mo, no)} of naive (cpu ${ratio(moc, noc)})`,
    );
    console.log(`setup phase, one worktree: npm ci              ${ms(ci)}`);
    console.log(`setup phase, one worktree: cache restore       ${ms(re)}   ${ratio(ci, re)} faster`);
    console.log(`setup phase, one worktree: kept paths checked  ${ms(ke)}   ${ratio(ci, ke)} faster (median of 3)`);
    console.log(`load average: ${load()}`);
  } finally {
    cleanup();
  }
}

function expectHit(cached, what) {
  if (cached.kind !== 'hit' || !cached.report.message.startsWith(what))
    throw new Error(`expected a ${what} hit: ${JSON.stringify(cached.report)}`);
}
