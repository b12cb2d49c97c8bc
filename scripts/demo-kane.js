#!/usr/bin/env node
// The same demo verified by Kane CLI instead of Playwright (needs `kane-cli` on PATH and a Kane login).
import { onPath, runDemo } from './demo-lib.js';

if (!onPath('kane-cli')) {
  console.error(`demo-kane: kane-cli is not on PATH. This variant lets Kane CLI drive the browser:
  install Kane CLI and log in (see docs/kane.md), then run \`node scripts/demo-kane.js\` again.
  Without Kane, \`npm run demo\` runs the same demo with Playwright.`);
  process.exit(1);
}
process.exitCode = await runDemo({ argv: process.argv.slice(2), config: 'elenchos.kane.config.json', label: 'kane' });
