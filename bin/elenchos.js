#!/usr/bin/env node
// A shim: all behaviour lives in the compiled CLI.
import { main } from '../dist/cli.js';

main(process.argv).then((code) => {
  process.exitCode = code;
});
