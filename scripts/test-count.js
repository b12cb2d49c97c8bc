#!/usr/bin/env node
// Counts the test cases of each suite `.ci/run` runs (`npm test`, `npm run test:slow`, `npm run
// test:stacks`: vitest.config.ts, vitest.slow.config.ts, vitest.stacks.config.ts, the ones a checkout
// has) with `vitest list`, and checks that every test file is in exactly one of them. With --against
// another checkout (with its node_modules), it also counts there and names every case one side has and
// the other lacks (by its full name: a case moved to another file or suite keeps it), so a split of the
// suite can show it lost none.
//
//   node scripts/test-count.js [--against /path/to/other/checkout]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fg from 'fast-glob';

const CONFIGS = ['vitest.config.ts', 'vitest.slow.config.ts', 'vitest.stacks.config.ts'];
const here = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const args = process.argv.slice(2);
const against = args.includes('--against') ? path.resolve(args[args.indexOf('--against') + 1] ?? '') : undefined;

/** config → [{ name, file }] of the cases `vitest list` collects in `root` with that config. */
function list(root) {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'elenchos-test-count-'));
  try {
    const suites = new Map();
    for (const config of CONFIGS.filter((c) => existsSync(path.join(root, c)))) {
      const out = path.join(scratch, `${config}.json`);
      execFileSync(process.execPath, [path.join(root, 'node_modules/vitest/vitest.mjs'), 'list', '--config', config, `--json=${out}`], {
        cwd: root,
        stdio: ['ignore', 'ignore', 'inherit'],
        env: { ...process.env, NO_COLOR: '1' },
      });
      const cases = JSON.parse(readFileSync(out, 'utf8')).map((c) => ({ name: c.name, file: path.relative(root, c.file) }));
      suites.set(config, cases);
    }
    return suites;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function report(root, suites) {
  let total = 0;
  let files = 0;
  console.log(`${root}:`);
  for (const [config, cases] of suites) {
    const n = new Set(cases.map((c) => c.file)).size;
    console.log(`  ${config.padEnd(24)} ${String(cases.length).padStart(5)} cases in ${String(n).padStart(3)} files`);
    total += cases.length;
    files += n;
  }
  console.log(`  ${'all'.padEnd(24)} ${String(total).padStart(5)} cases in ${String(files).padStart(3)} files`);
  return total;
}

let failed = false;
const suites = list(here);
const total = report(here, suites);

// Every test file in exactly one suite (a file with no case at all, e.g. skipped on this machine, is not listed).
const owner = new Map();
for (const [config, cases] of suites)
  for (const file of new Set(cases.map((c) => c.file))) {
    if (owner.has(file)) {
      console.error(`${file} runs in both ${owner.get(file)} and ${config}`);
      failed = true;
    }
    owner.set(file, config);
  }
for (const file of fg.sync('test/**/*.test.ts', { cwd: here, ignore: ['**/node_modules/**'] }))
  if (!owner.has(file)) {
    console.error(`${file} runs in no suite`);
    failed = true;
  }

if (against) {
  const other = list(against);
  const before = report(against, other);
  const names = (s) => [...s.values()].flat().map((c) => c.name);
  const count = (list) => list.reduce((m, n) => m.set(n, (m.get(n) ?? 0) + 1), new Map());
  const mine = count(names(suites));
  const theirs = count(names(other));
  for (const [name, n] of theirs)
    if ((mine.get(name) ?? 0) < n) {
      console.error(`lost: ${name}`);
      failed = true;
    }
  for (const [name, n] of mine) if ((theirs.get(name) ?? 0) < n) console.log(`new: ${name}`);
  console.log(`${total} cases here, ${before} in ${against}`);
}
process.exit(failed ? 1 : 0);
