// The tsconfig that decides what the spec's bare imports load is the verifier's, not the agent's: the
// nearest to the spec inside the repository is locked with its relative `extends`, and passed to
// Playwright as its one --tsconfig (an empty one when the repository has none).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { extendsOf, nearestTsconfig, playwrightLockedInputs } from '../../src/verifiers/playwright/spec-imports.js';
import { pinnedTsconfig } from '../../src/verifiers/playwright/run-playwright.js';
import { tempDir, writeFiles } from '../helpers/temp.js';

const SPEC = "import { test } from '@playwright/test';\n";

describe('the tsconfig a Playwright spec is compiled with', () => {
  it('is the nearest tsconfig.json or jsconfig.json from the spec up to the root, locked with what it extends', async () => {
    const root = tempDir();
    writeFiles(root, {
      'e2e/a.spec.ts': SPEC,
      'tsconfig.json': '{ // comments are allowed\n "extends": ["./configs/base", "@tsconfig/node20/tsconfig.json"] }\n',
      'configs/base.json': '{ "extends": "../configs/paths.json" }\n',
      'configs/paths.json': '{ "compilerOptions": { "paths": {} } }\n',
    });
    expect(await nearestTsconfig(root, 'e2e/a.spec.ts')).toBe('tsconfig.json');
    expect((await playwrightLockedInputs(root, 'e2e/a.spec.ts')).files).toEqual([
      'configs/base.json',
      'configs/paths.json',
      'tsconfig.json',
    ]);
    writeFiles(root, { 'e2e/jsconfig.json': '{}' });
    expect(await nearestTsconfig(root, 'e2e/a.spec.ts')).toBe('e2e/jsconfig.json');
    expect((await playwrightLockedInputs(root, 'e2e/a.spec.ts')).files).toContain('e2e/jsconfig.json');
    expect(await pinnedTsconfig(root, 'e2e/a.spec.ts', tempDir())).toBe(path.join(root, 'e2e/jsconfig.json'));
  });

  it('is an empty one of Elenchos when the repository has none, never one found above it', async () => {
    const above = tempDir();
    writeFiles(above, { 'tsconfig.json': '{ "compilerOptions": { "paths": { "@playwright/test": ["./fake.js"] } } }' });
    const root = path.join(above, 'repo');
    writeFiles(root, { 'tests/a.spec.ts': SPEC });
    expect(await nearestTsconfig(root, 'tests/a.spec.ts')).toBeNull();
    expect((await playwrightLockedInputs(root, 'tests/a.spec.ts')).files).toEqual([]);
    const dir = tempDir();
    const pinned = await pinnedTsconfig(root, 'tests/a.spec.ts', dir);
    expect(path.dirname(pinned)).toBe(dir);
    expect(JSON.parse(readFileSync(pinned, 'utf8'))).toEqual({});
    expect(await nearestTsconfig(root, '../outside.spec.ts')).toBeNull();
  });

  it('reads extends as a string or an array, comments aside', () => {
    expect(extendsOf('{ "extends": "./a.json" }')).toEqual(['./a.json']);
    expect(extendsOf('{ /* "extends": "./no" */ "extends": ["./b", "pkg/c"] }')).toEqual(['./b', 'pkg/c']);
    expect(extendsOf('{ "compilerOptions": {} }')).toEqual([]);
  });
});
