#!/usr/bin/env node
// npm's "prepare" hook: builds dist/ when Elenchos is installed from source (`npm ci` in a clone, a git
// URL, a folder). A folder whose own dependencies were never installed has no TypeScript: say so in
// one line instead of npm's "tsc: not found".
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
let tsc = null;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  // not installed here: decided below
}
if (tsc === null) {
  if (existsSync(new URL('../dist/cli.js', import.meta.url))) {
    console.error('elenchos: TypeScript is not installed here; keeping the dist/ already built');
    process.exit(0);
  }
  console.error(
    `elenchos: cannot build: TypeScript is not installed in ${root}; run \`npm ci\` there first (it builds dist/), then install again`,
  );
  process.exit(1);
}
const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
if (result.status !== 0) process.exit(result.status ?? 1);
// The one-file bundle bin/elenchos.js prefers (scripts/bundle.js) needs esbuild, a development dependency:
// without it (an install that left those out), the CLI runs from the compiled modules, only slower to start.
let esbuild = true;
try {
  createRequire(import.meta.url).resolve('esbuild');
} catch {
  esbuild = false;
}
if (!esbuild) {
  console.error('elenchos: esbuild is not installed here; the CLI runs from dist/cli.js, unbundled (slower to start)');
  process.exit(0);
}
const bundled = spawnSync(process.execPath, [fileURLToPath(new URL('bundle.js', import.meta.url))], { cwd: root, stdio: 'inherit' });
process.exit(bundled.status ?? 1);
