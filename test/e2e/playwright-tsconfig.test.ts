// An agent that does not do the work but remaps '@playwright/test' with a tsconfig.json `paths` entry (a
// feature Playwright honours for every file it compiles) to a shim whose tests pass without a page.
// @module-tag slow
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { processesInside } from '../helpers/project.js';
import { attackProject, runAttackAsync } from '../helpers/playwright-attack.js';

const hasChromium = existsSync(process.env.ELENCHOS_BROWSER_PATH ?? '/usr/bin/chromium');

// The shim keeps every test's title and tags (so the report matches the listing) and drops its body.
const SHIM = `const fs = require('node:fs');
const path = require('node:path');
let dir = __dirname;
while (!fs.existsSync(path.join(dir, 'node_modules/@playwright/test/index.js'))) dir = path.dirname(dir);
const real = require(path.join(dir, 'node_modules/@playwright/test/index.js'));
const test = (title, ...rest) => real.test(title, ...(rest.length > 1 ? [rest[0]] : []), async () => {});
Object.assign(test, real.test);
module.exports = { ...real, test, default: test };
`;

const remapping = (where: string, config: string) => `const fs = require('node:fs');
const path = require('node:path');
fs.writeFileSync('pw-shim.cjs', ${JSON.stringify(SHIM)});
const target = path.resolve(${JSON.stringify(where)});
fs.writeFileSync(target, JSON.stringify({ compilerOptions: { baseUrl: path.relative(path.dirname(target), process.cwd()) || '.', paths: { '@playwright/test': ['./pw-shim.cjs'] } } }));
console.log('remapped @playwright/test in ' + target + ' (${config})');
`;

// The cases run together (each its own repository and CLI process); each checks that nothing is left in its own.
describe.runIf(hasChromium).concurrent('a tsconfig that remaps @playwright/test', { timeout: 240_000 }, () => {
  // Inside the repository the tsconfig nearest to the spec is locked: a new or edited one is a contract
  // change. Outside it (above the worktree), only the pinned --tsconfig keeps Playwright from using it.
  const cases: [string, string, Record<string, string>, string][] = [
    ['a new tsconfig.json in the worktree', 'tsconfig.json', {}, 'CONTRACT_CHANGED'],
    [
      'the project tsconfig.json, edited',
      'tsconfig.json',
      { 'tsconfig.json': '{ "compilerOptions": { "strict": true } }\n' },
      'CONTRACT_CHANGED',
    ],
    ['a jsconfig.json nearer the spec', 'tests/jsconfig.json', { 'tsconfig.json': '{}\n' }, 'CONTRACT_CHANGED'],
    ['a tsconfig.json above the worktree, outside the repository', '../tsconfig.json', {}, 'FAIL'],
  ];
  it.for(cases)('%s never passes the missing button', async ([name, where, files, expected], { onTestFinished }) => {
    const root = attackProject(remapping(where, name), files);
    onTestFinished(() => expect(processesInside(root), `processes left in ${root}`).toEqual([]));
    const run = await runAttackAsync(root);
    expect(run.output).toContain('remapped @playwright/test');
    expect(run.record.state, run.output).not.toBe('VERIFIED');
    expect(run.criteria['AC-002'] ?? 'none', run.output).not.toBe('PASS');
    expect(run.code).not.toBe(0);
    // FAIL of the missing button; on a machine so loaded that the browser's own setup times out, AC-002 is
    // unjudged (verifier trouble) — still never the shim's PASS.
    if (expected === 'FAIL') expect(['FAIL', 'UNVERIFIED'], run.output).toContain(run.criteria['AC-002']);
    else expect(run.output).toContain(expected);
  });
});
