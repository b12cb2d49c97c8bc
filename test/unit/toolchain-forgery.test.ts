// The Playwright toolchain fingerprint against an agent that covers its tracks: node_modules is git-ignored,
// so only the fingerprint sees a planted `expect`. A user can put an mtime back (utimes) and keep a size;
// it cannot set a ctime or keep an inode across a replace.
import { execFileSync } from 'node:child_process';
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { toolchainChanges } from '../../src/core/run/toolchain.js';
import { commandToolchain } from '../../src/verifiers/command/command-inputs.js';
import { playwrightToolchain } from '../../src/verifiers/playwright/toolchain.js';
import { tempDir, writeFiles } from '../helpers/temp.js';

const REAL_INDEX = 'module.exports = require("playwright/test");\n';

function project(): { root: string; options: Parameters<typeof playwrightToolchain>[0] } {
  const root = tempDir();
  writeFiles(root, {
    'tests/a.spec.ts': "import { test } from '@playwright/test';\n",
    'node_modules/@playwright/test/package.json': '{"name":"@playwright/test","version":"1.58.2"}',
    'node_modules/@playwright/test/index.js': REAL_INDEX,
    'node_modules/.bin/playwright': '#!/bin/sh\n',
  });
  return { root, options: { cwd: root, testFileLabel: 'tests/a.spec.ts', command: undefined, env: { PATH: '' } } };
}

/** Gives `file` the atime and mtime of `reference`, to the nanosecond (`touch -r`). */
function copyTimes(reference: string, file: string): void {
  execFileSync('touch', ['-r', reference, file]);
  expect(statSync(file, { bigint: true }).mtimeNs).toBe(statSync(reference, { bigint: true }).mtimeNs);
}

/** Rewrites `file` with `text` padded to its old size, and puts its mtime back to the nanosecond. */
function forge(file: string, text: string): void {
  const before = statSync(file);
  const reference = `${file}.times`;
  writeFileSync(reference, '');
  copyTimes(file, reference);
  expect(text.length).toBeLessThanOrEqual(before.size);
  writeFileSync(file, text.padEnd(before.size, ' '));
  copyTimes(reference, file);
  rmSync(reference);
  expect(statSync(file).size).toBe(before.size);
}

describe('the Playwright toolchain fingerprint, forged', () => {
  it('sees a package file rewritten with the same size and its mtime put back', async () => {
    const { root, options } = project();
    const before = await playwrightToolchain(options);
    forge(path.join(root, 'node_modules/@playwright/test/index.js'), 'module.exports={expect:()=>0};');
    expect(toolchainChanges(before, await playwrightToolchain(options))).toEqual(['@playwright/test']);
  });

  it('sees the runner rewritten with the same size and its mtime put back', async () => {
    const { root, options } = project();
    const before = await playwrightToolchain(options);
    forge(path.join(root, 'node_modules/.bin/playwright'), '#!/bin/');
    expect(toolchainChanges(before, await playwrightToolchain(options))).toEqual(['runner']);
  });

  it('sees a package file replaced by a rename, same bytes, size and mtime', async () => {
    const { root, options } = project();
    const before = await playwrightToolchain(options);
    const index = path.join(root, 'node_modules/@playwright/test/index.js');
    writeFileSync(`${index}.new`, readFileSync(index));
    copyTimes(index, `${index}.new`);
    renameSync(`${index}.new`, index);
    expect(toolchainChanges(before, await playwrightToolchain(options))).toEqual(['@playwright/test']);
  });

  it('is the same when nothing changed, even after the files were read', async () => {
    const { root, options } = project();
    const before = await playwrightToolchain(options);
    readFileSync(path.join(root, 'node_modules/@playwright/test/index.js'));
    expect(await playwrightToolchain(options)).toEqual(before);
  });
});

// node_modules is git-ignored: a package a spec or a command verifier imports by name is only seen here.
describe('packages the verifier’s own code imports by name', () => {
  it('a Playwright spec’s helper package rewritten in place', async () => {
    const { root, options } = project();
    writeFiles(root, {
      'tests/a.spec.ts': "import { test } from '@playwright/test';\nimport { same } from './helpers';\n",
      'tests/helpers.ts': "export { isEqual as same } from 'lodash';\n",
      'node_modules/lodash/index.js': 'exports.isEqual = (a, b) => a === b;\n',
    });
    const before = await playwrightToolchain(options);
    forge(path.join(root, 'node_modules/lodash/index.js'), 'exports.isEqual=()=>true;');
    expect(toolchainChanges(before, await playwrightToolchain(options))).toEqual(['node_modules/lodash']);
  });

  it('a command verifier’s package rewritten in place', async () => {
    const root = tempDir();
    writeFiles(root, {
      'tests/verify.mjs': "import { check } from 'page-check';\n",
      'node_modules/page-check/index.js': 'export const check = (page, text) => page.includes(text);\n',
    });
    const options = { cwd: root, env: { PATH: '' }, invocation: { command: 'node tests/verify.mjs', args: [], env: {} } };
    const before = await commandToolchain(options);
    expect(before).toHaveLength(2);
    forge(path.join(root, 'node_modules/page-check/index.js'), 'export const check = () => true;');
    expect(toolchainChanges(before, await commandToolchain(options))).toEqual(['node_modules/page-check']);
  });
});
