#!/usr/bin/env node
// #13: `elenchos verify` of 8 tasks, --workers 4, on a small web app whose setup is a real `npm ci`
// (5 direct packages, ~50 installed, from the npm cache already on this machine: --offline, no network).
//   warm:   setup.cache entry present and the worktree pool warm (each task takes a warm worktree whose
//           kept node_modules is checked against the entry, or restores it, instead of running npm ci)
//   naive:  no setup.cache and --fresh (a fresh worktree + npm ci per task, as before #13)
//   new dependency: the lockfile changed (the agent added one), so every task's key misses:
//           the first does npm ci and saves, the others wait for it and restore (vs naive on that commit)
//   one-task miss: a single verify whose key misses (npm ci + save) vs the same without the cache
//   setup phase alone, one worktree: npm ci vs a restore (copy + check) vs kept paths checked (a warm
//           worktree of the pool keeps node_modules; only files whose stat signature changed are re-read)
// Goals: warm >= 5x faster than naive; a miss no slower than today.
// Usage: npm run build && node bench/setup-cache.js [verifierStepMs=200] [rounds=1] [miss]
//   miss: only the one-task miss against naive, `rounds` times interleaved (the miss's copy runs in the background)
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gitSync, makeRepo, median, timeOnce } from './lib.js';
import { beginCachedSetup } from '../dist/core/setup-cache.js';

const stepMs = Number(process.argv[2] ?? 200);
const rounds = Number(process.argv[3] ?? 1);
const missOnly = process.argv[4] === 'miss';
const bin = fileURLToPath(new URL('../bin/elenchos.js', import.meta.url));
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
const deps = { commander: '14.0.3', zod: '4.6.7', 'fast-glob': '3.3.3', execa: '9.6.0', tar: '7.5.23' };
const added = { 'simple-git': '4.0.2' };

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

/** package.json + package-lock.json for `dependencies`, resolved from the local npm cache only. */
function lockfileFor(dependencies) {
  const dir = mkdtempSync(path.join(tmpdir(), 'elenchos-bench-lock-'));
  try {
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'bench-app', version: '1.0.0', private: true, dependencies }));
    execFileSync('npm', ['install', '--package-lock-only', '--ignore-scripts'], { cwd: dir, env: npmEnv, stdio: 'pipe' });
    return {
      'package.json': readFileSync(path.join(dir, 'package.json'), 'utf8'),
      'package-lock.json': readFileSync(path.join(dir, 'package-lock.json'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const extra = { ...lockfileFor(deps), '.gitignore': 'node_modules\n', 'tests/t_test.md': '## Step 1 @verifies AC-1\nVerify it answers.\n' };
for (let i = 1; i <= 8; i++) {
  extra[`tasks/t${i}.json`] = JSON.stringify({
    id: `t${i}`,
    title: 't',
    description: 'd',
    acceptanceCriteria: [{ id: 'AC-1', description: 'x' }],
    verification: { testFile: 'tests/t_test.md' },
  });
}
// Two checkouts of one history: the same commits, one configured with the cache, one without.
const { base, root: cached, cleanup } = makeRepo(100, 'elenchos-bench-setup-cache-', { ...extra, 'elenchos.config.json': configFor(true) });
const naive = path.join(base, 'naive');
gitSync(base, 'clone', '-q', cached, naive);
writeFileSync(path.join(naive, 'elenchos.config.json'), configFor(false));
gitSync(naive, '-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-qam', 'no setup cache');
const home = path.join(base, 'home');
mkdirSync(home);

function verify(root, tasks = []) {
  const start = process.hrtime.bigint();
  const fresh = root === naive ? ['--fresh'] : []; // the naive way: no pool either
  const result = spawnSync(process.execPath, [bin, 'verify', '--workers', '4', ...fresh, ...tasks, '--json'], {
    cwd: root,
    env: { ...npmEnv, HOME: home },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`verify failed (${result.status}): ${result.stderr}${result.stdout.slice(-1500)}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function addDependency(root) {
  for (const [name, content] of Object.entries(lockfileFor({ ...deps, ...added }))) writeFileSync(path.join(root, name), content);
  gitSync(root, '-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-qam', 'add simple-git');
}

const ratio = (a, b) => `${(a / b).toFixed(2)}x`;
const ms = (x) => `${x.toFixed(0).padStart(6)} ms`;
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
    const [no, mo] = [naiveOne, missOne].map(median);
    console.log(`one task, verifier ${stepMs} ms/step; median of ${rounds} interleaved pairs`);
    console.log(`one task, naive                            ${ms(no)}   [${naiveOne.map((x) => x.toFixed(0)).join(' ')}]`);
    console.log(
      `one task, cache miss (npm ci + save)       ${ms(mo)}   cost ${ratio(mo, no)} of naive [${missOne.map((x) => x.toFixed(0)).join(' ')}]`,
    );
    console.log(`per-pair ratios: ${missOne.map((m, i) => (m / naiveOne[i]).toFixed(2)).join(' ')}`);
  } else await allArms();
} finally {
  cleanup();
}

async function allArms() {
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
  const [ci, re, ke] = [npmCi, restore, kept].map(median);
  const [w, n, ma, na, mo, no] = [warm, naiveTimes, missAll, naiveAfter, missOne, naiveOne].map(median);
  console.log(
    `verify of 8 tasks, --workers 4, setup \`npm ci --offline\` (${Object.keys(deps).length} direct deps), verifier ${stepMs} ms/step; median of ${rounds}`,
  );
  console.log(`naive (fresh worktree + npm ci per task)   ${ms(n)}`);
  console.log(`setup cache warm                           ${ms(w)}   speed-up ${ratio(n, w)} (goal >= 5x)`);
  console.log(`after adding a dependency: naive           ${ms(na)}`);
  console.log(`after adding a dependency: cache (misses)  ${ms(ma)}   cost ${ratio(ma, na)} of naive (goal <= 1x)`);
  console.log(`one task, naive                            ${ms(no)}`);
  console.log(`one task, cache miss (npm ci + save)       ${ms(mo)}   cost ${ratio(mo, no)} of naive`);
  console.log(`setup phase, one worktree: npm ci              ${ms(ci)}`);
  console.log(`setup phase, one worktree: cache restore       ${ms(re)}   ${ratio(ci, re)} faster`);
  console.log(`setup phase, one worktree: kept paths checked  ${ms(ke)}   ${ratio(ci, ke)} faster (median of 3)`);
}

function expectHit(cached, what) {
  if (cached.kind !== 'hit' || !cached.report.message.startsWith(what))
    throw new Error(`expected a ${what} hit: ${JSON.stringify(cached.report)}`);
}
