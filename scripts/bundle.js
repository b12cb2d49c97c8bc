#!/usr/bin/env node
// Bundles the compiled CLI (dist/cli.js and every module it reaches) into one file, dist/cli.cjs, which
// bin/elenchos.js runs: a CommonJS module body wrapped in one function expression, then a last line with the
// build's id (the sha256 of the code above it), which keys V8's code cache. Node's ES module loader pays for every file it loads (resolving, reading,
// linking): a light command such as `check` reached about 200 of them, zod's 64 locales included, and its
// start-up cost about 4× node's own (docs/performance.md#what-each-command-loads). One file, compiled once with V8's code
// cache (bin/elenchos.js), brings it near 2×.
//
// What stays outside, loaded by `require` from node_modules when first used: the large CommonJS packages
// that only some commands need (the TypeScript parser, Sigstore, the MCP SDK, tar, fast-glob, wait-on,
// yauzl, picomatch). Inside: Elenchos's own modules, and what every command loads (zod, commander,
// simple-git) or what CommonJS cannot `require` on every Node 20 (execa is an ES module only).
// The compiled modules in dist/ stay as they are: the library entry (dist/index.js), the watchdog and the
// Playwright reporter (each run in its own process) and the tests use them.
// Usage: node scripts/bundle.js (after `tsc -b tsconfig.build.json`; `npm run build` does both).
import { createHash } from 'node:crypto';
import { appendFileSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { EXTERNAL, covers, isExternal } from './bundle-external.js';

const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

for (const name of EXTERNAL) {
  if (!Object.keys(packageJson.dependencies).some((dependency) => covers(name, dependency)))
    throw new Error(`scripts/bundle.js: ${name} is not a dependency of elenchos: drop it from EXTERNAL`);
}

/**
 * `import('typescript')`, `import('node:path')`: a dynamic import left in a CommonJS bundle is a real one,
 * which a script compiled by vm.Script with cached data cannot make (Node asks for a callback that V8's
 * code cache drops). Each becomes a module of the bundle holding `require(name)`, reached lazily like any
 * other: the package is still loaded only when first used, and through `require`, which every Node 20 has.
 */
const dynamicToRequire = {
  name: 'dynamic-import-to-require',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind !== 'dynamic-import') return undefined;
      if (!args.path.startsWith('node:') && !isExternal(args.path)) return undefined;
      return { path: args.path, namespace: 'required' };
    });
    pluginBuild.onLoad({ filter: /.*/, namespace: 'required' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

const outfile = fileURLToPath(new URL('../dist/cli.cjs', import.meta.url));
const result = await build({
  entryPoints: [fileURLToPath(new URL('../dist/cli.js', import.meta.url))],
  outfile,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  // A third of the size, so a third less to read and compile at every start. The source map beside it
  // (dist/cli.cjs.map) turns a position in the minified bundle back into a line of src/.
  minify: true,
  // Class and function names kept: error messages and reports print some (`error.name`).
  keepNames: true,
  sourcemap: 'external',
  // The modules find Elenchos's own files from import.meta.url (version.ts packageFile): in the bundle that
  // is the bundle's own location.
  define: { 'import.meta.url': '__elenchosBundleUrl' },
  // The shim compiles the file as it is, with no wrapper to add (a copy of a megabyte at every start).
  banner: {
    js: "(function (exports, require, module, __filename, __dirname) {const __elenchosBundleUrl = require('node:url').pathToFileURL(__filename).href;",
  },
  footer: { js: '})' },
  plugins: [dynamicToRequire],
  metafile: true,
  logLevel: 'warning',
});
// Every import left is a `require`: a real `import()` would fail at run time (see dynamicToRequire).
const left = Object.values(result.metafile.outputs)
  .flatMap((output) => output.imports)
  .filter((entry) => entry.kind === 'dynamic-import');
if (left.length > 0)
  throw new Error(`scripts/bundle.js: dynamic imports left in dist/cli.cjs: ${left.map((entry) => entry.path).join(', ')}`);
appendFileSync(outfile, `\n//# elenchos-build ${createHash('sha256').update(readFileSync(outfile)).digest('hex')}\n`);
// Made by the shim at the next start, for this build.
rmSync(`${outfile}.v8cache`, { force: true });
