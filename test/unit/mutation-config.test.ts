// `npm run mutate` mutates what stryker.config.json names and judges it with the tests vitest.mutate.config.ts
// includes. A file renamed or folded away is silently never mutated (Stryker skips a name that matches
// nothing), so every name of both lists must exist, and every mutated file must be imported by one of the
// tests that judge it (else each of its mutants is "no coverage").
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fg from 'fast-glob';
import { describe, expect, it } from 'vitest';
import { tempDir, writeFiles } from '../helpers/temp.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Every problem of a mutation config rooted at `at`: names that match nothing, mutated files no test imports. */
function staleEntries(at: string, mutate: readonly string[], include: readonly string[]): string[] {
  const problems: string[] = [];
  const tests = include.filter((file) => {
    if (existsSync(path.join(at, file))) return true;
    problems.push(`vitest.mutate.config.ts: ${file} does not exist`);
    return false;
  });
  const texts = tests.map((file) => readFileSync(path.join(at, file), 'utf8'));
  for (const entry of mutate.filter((m) => !m.startsWith('!'))) {
    const files = fg.sync(entry, { cwd: at });
    if (files.length === 0) problems.push(`stryker.config.json: mutate names ${entry}, which matches no file`);
    for (const file of files) {
      const module = file.replace(/^src\//, '').replace(/\.ts$/, '.js');
      if (!texts.some((text) => text.includes(`/src/${module}'`)))
        problems.push(`stryker.config.json: no test of vitest.mutate.config.ts imports ${file}`);
    }
  }
  return problems;
}

describe('the mutation config', () => {
  it('names a missing or folded-away source, a missing test and a source no test imports', () => {
    const at = tempDir();
    writeFiles(at, {
      'src/util/json-scan.ts': 'export const a = 1;\n',
      'src/util/lonely.ts': 'export const b = 1;\n',
      'test/unit/json-scan.test.ts': "import { a } from '../../src/util/json-scan.js';\n",
    });
    expect(
      staleEntries(
        at,
        ['src/util/duplicate-keys.ts', 'src/util/json-scan.ts', 'src/util/lonely.ts', 'src/nothing/*.ts'],
        ['test/unit/json-scan.test.ts', 'test/unit/gone.test.ts'],
      ),
    ).toEqual([
      'vitest.mutate.config.ts: test/unit/gone.test.ts does not exist',
      'stryker.config.json: mutate names src/util/duplicate-keys.ts, which matches no file',
      'stryker.config.json: no test of vitest.mutate.config.ts imports src/util/lonely.ts',
      'stryker.config.json: mutate names src/nothing/*.ts, which matches no file',
    ]);
  });

  it('matches the tree', async () => {
    const stryker = JSON.parse(readFileSync(path.join(root, 'stryker.config.json'), 'utf8')) as { mutate: string[] };
    const saved = process.env.MUTATE_TESTS;
    delete process.env.MUTATE_TESTS;
    try {
      const { default: config } = (await import('../../vitest.mutate.config.js')) as { default: { test: { include: string[] } } };
      expect(staleEntries(root, stryker.mutate, config.test.include)).toEqual([]);
    } finally {
      if (saved !== undefined) process.env.MUTATE_TESTS = saved;
    }
  });
});
