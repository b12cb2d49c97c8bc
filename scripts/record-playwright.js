#!/usr/bin/env node
// Records the Playwright replay's captures again (test/fixtures/bin/playwright-replay, docs/testing.md
// "Fakes"): runs every test file that uses the replay (it imports test/helpers/playwright-replay.ts) with
// ELENCHOS_PLAYWRIGHT_RECORD=1, so each replayed case runs the installed @playwright/test in the system
// Chromium against the real tiny apps and stores what Playwright did under
// test/fixtures/playwright-replay/<version>/, and writes that folder's provenance (README.md).
// Run it after upgrading @playwright/test, or when a replayed case or fixture spec changes (the replay then
// refuses with "no capture for this invocation … re-record with node scripts/record-playwright.js").
//
//   node scripts/record-playwright.js [test files…]   (default: every file that uses the replay)
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fg from 'fast-glob';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const version = JSON.parse(readFileSync(path.join(root, 'node_modules/@playwright/test/package.json'), 'utf8')).version;
const captures = path.join(root, 'test/fixtures/playwright-replay', version);
const SLOW_TAG = /^\s*(?:\/\/|\*)\s*@module-tag\s+slow\b/m;
const USES_REPLAY = /from '\.\.\/helpers\/playwright-replay\.js'/;
// The replay's own test reads the captures; it records nothing.
const SELF = 'test/adapters/playwright-replay.test.ts';

const given = process.argv.slice(2);
const users = fg
  .sync('test/**/*.test.ts', { cwd: root, ignore: ['test/stacks/**'] })
  .filter((file) => file !== SELF && USES_REPLAY.test(readFileSync(path.join(root, file), 'utf8')))
  .sort();
const files = given.length ? given : users;
// A whole re-record starts from nothing, so no capture of an invocation (or a version) no test makes any
// more is left.
if (!given.length) rmSync(path.dirname(captures), { recursive: true, force: true });
mkdirSync(captures, { recursive: true });

const env = { ...process.env, ELENCHOS_PLAYWRIGHT_RECORD: '1' };
const vitest = path.join(root, 'node_modules/vitest/vitest.mjs');
const slow = files.filter((file) => SLOW_TAG.test(readFileSync(path.join(root, file), 'utf8')));
const fast = files.filter((file) => !slow.includes(file));
// One file at a time: a browser on a loaded machine runs past the fixture specs' short timeouts.
for (const [config, group] of [
  ['vitest.config.ts', fast],
  ['vitest.slow.config.ts', slow],
]) {
  if (group.length === 0) continue;
  console.log(`recording with ${config}: ${group.join(' ')}`);
  execFileSync(process.execPath, [vitest, 'run', '--config', config, '--maxWorkers=1', ...group], { cwd: root, env, stdio: 'inherit' });
}

const chromium = (() => {
  try {
    return execFileSync(process.env.ELENCHOS_BROWSER_PATH ?? '/usr/bin/chromium', ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
})();
writeFileSync(
  path.join(captures, 'README.md'),
  `# Playwright ${version} captures

Recorded by \`node scripts/record-playwright.js\` on ${new Date().toISOString().slice(0, 10)}: @playwright/test ${version}
(node_modules of this repository), ${chromium} (${process.env.ELENCHOS_BROWSER_PATH ?? '/usr/bin/chromium'}), Node ${process.version}.
Each folder is one invocation of \`playwright test --config … --tsconfig … [args]\` made by a test through
\`test/fixtures/bin/playwright-replay --record\` (ELENCHOS_PLAYWRIGHT_RECORD=1), from these files:

${users.map((file) => `- ${file}`).join('\n')}

Per capture: \`invocation.json\` (what picks it: version, mode, spec and its sha256, arguments, the
generated config with paths as placeholders), \`stdout\`, \`stderr\`, \`exit.json\` (code, signal, or
\`hung\`: killed at the verifier's limit), \`report.json\` (the JSON report) and \`files/\` (what the run
wrote beside its config: outputDir with test-results, traces and attachments; the config notes).
In text, \`@@CONFIGDIR@@\`, \`@@CWD@@\`, \`@@CACHE@@\`, \`@@OUTPUTDIR@@\` and \`@@REPO@@\` stand for the
recording's folders; the replay writes the replaying invocation's. Binary files are as Playwright wrote them.
Do not edit: record again.
`,
);
console.log(`captures for Playwright ${version} in ${path.relative(root, captures)}`);
