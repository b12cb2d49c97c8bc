#!/usr/bin/env node
// A shim: all behaviour lives in the compiled CLI.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = new URL('../dist/cli.js', import.meta.url);
const args = process.argv.slice(2);
// A copy installed from source that never ran its build would otherwise die with an
// ERR_MODULE_NOT_FOUND stack; say what is missing and how to fix it instead.
if (!existsSync(cli)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  process.stderr.write(
    `elenchos: ${fileURLToPath(cli)} is missing: this copy was never built; run \`npm run build\` in ${root} (installs from git or a folder build on "prepare")\n`,
  );
  process.exitCode = 2;
} else if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // `--version` alone is answered here: loading the CLI (commander and every command's options) costs
  // more than node's own start (docs/performance.md#start-up-and-a-runs-phases).
  process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
} else {
  let main;
  try {
    ({ main } = await import(cli.href));
  } catch (error) {
    // Built, but a runtime dependency is missing (an install without dependencies): name it, no stack.
    if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
    process.stderr.write(`elenchos: ${String(error.message).split('\n')[0]}; reinstall elenchos with its dependencies (npm install)\n`);
    process.exit(2);
  }
  main(process.argv).then((code) => {
    process.exitCode = code;
  });
}
