#!/usr/bin/env node
// A shim: all behaviour lives in the compiled CLI. It runs the one-file bundle, dist/cli.cjs
// (scripts/bundle.js), compiled with V8's code cache; a copy built without the bundle runs the compiled
// modules, dist/cli.js. CommonJS (bin/package.json), as the bundle is: Node's ES module loader would cost
// a light command's start-up more than this file does.
'use strict';
const { existsSync, readFileSync, renameSync, unlinkSync, writeFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const { Script } = require('node:vm');

const root = path.join(__dirname, '..');
const cli = path.join(root, 'dist/cli.js');
const bundle = path.join(root, 'dist/cli.cjs');
/** The bundle's last line: its build id, the sha256 of its code (scripts/bundle.js). */
const BUILD_ID = '\n//# elenchos-build ';

/**
 * Runs the bundle (one function expression around a CommonJS module body) compiled through vm.Script with
 * V8's code cache kept beside it, `cli.cjs.v8cache`: a header (the bundle's build id and its path), then
 * V8's data. That spares most of the compile at every start. The data is used only for the build it was
 * made from, at the path it was made at (V8 keeps the path in the data, for stack traces), and V8 itself
 * refuses data from another Node or V8. Missing, stale or refused, it is made again after the command and
 * replaced atomically; where the install is not writable the command runs the same, compiled afresh.
 * (Node 20 has no module.enableCompileCache, and its CommonJS loader takes no cached data.)
 */
function loadBundle() {
  const source = readFileSync(bundle, 'utf8');
  const at = source.lastIndexOf(BUILD_ID);
  const id = Buffer.from(at === -1 ? '' : source.slice(at + BUILD_ID.length).trim(), 'hex');
  const header = Buffer.concat([id, Buffer.from(`${bundle}\0`)]);
  const cacheFile = `${bundle}.v8cache`;
  let cachedData;
  try {
    const cache = readFileSync(cacheFile);
    if (id.length === 32 && cache.subarray(0, header.length).equals(header)) cachedData = cache.subarray(header.length);
  } catch {
    // no cache yet: compiled afresh, and made after the command
  }
  const script = new Script(source, { filename: bundle, cachedData });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, path.dirname(bundle));
  const keepCache = () => {
    if (id.length !== 32 || (cachedData !== undefined && !script.cachedDataRejected)) return;
    const temporary = `${cacheFile}.${process.pid}`;
    try {
      writeFileSync(temporary, Buffer.concat([header, script.createCachedData()]));
      renameSync(temporary, cacheFile);
    } catch {
      try {
        unlinkSync(temporary);
      } catch {
        // never written
      }
    }
  };
  return { main: module.exports.main, keepCache };
}

async function start(args) {
  if (!existsSync(cli)) {
    // A copy installed from source that never ran its build would otherwise die with an
    // ERR_MODULE_NOT_FOUND stack; say what is missing and how to fix it instead.
    process.stderr.write(
      `elenchos: ${cli} is missing: this copy was never built; run \`npm run build\` in ${root}${path.sep} (installs from git or a folder build on "prepare")\n`,
    );
    return 2;
  }
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    // `--version` alone is answered here: loading the CLI (commander and every command's options) costs
    // more than node's own start (docs/performance.md#start-up-and-a-runs-phases).
    process.stdout.write(`${JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).version}\n`);
    return 0;
  }
  let loaded;
  try {
    loaded = existsSync(bundle) ? loadBundle() : { main: (await import(pathToFileURL(cli).href)).main, keepCache: () => {} };
  } catch (error) {
    // Built, but a runtime dependency is missing (an install without dependencies): name it, no stack.
    if (error?.code !== 'ERR_MODULE_NOT_FOUND' && error?.code !== 'MODULE_NOT_FOUND') throw error;
    process.stderr.write(`elenchos: ${String(error.message).split('\n')[0]}; reinstall elenchos with its dependencies (npm install)\n`);
    return 2;
  }
  const code = await loaded.main(process.argv);
  loaded.keepCache();
  return code;
}

start(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
