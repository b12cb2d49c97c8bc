#!/usr/bin/env node
// A shim: all behaviour lives in the compiled CLI.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = new URL('../dist/cli.js', import.meta.url);
// A copy installed from source that never ran its build would otherwise die with an
// ERR_MODULE_NOT_FOUND stack; say what is missing and how to fix it instead.
if (!existsSync(cli)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  process.stderr.write(`elenchos: ${fileURLToPath(cli)} is missing: this copy was never built; run \`npm run build\` in ${root} (installs from git or a folder build on "prepare")\n`);
  process.exit(2);
}
const { main } = await import(cli.href);
main(process.argv).then((code) => {
  process.exitCode = code;
});
