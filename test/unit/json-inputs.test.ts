import { describe, expect, it } from 'vitest';
import { checkJsonInputs } from '../../src/core/json-inputs.js';
import { tempDir, writeFiles } from '../helpers/temp.js';

describe('verifier inputs read as their owner reads them', () => {
  it('a tsconfig with comments and trailing commas, as sv create writes it, is fine; so is the file it extends', async () => {
    const root = tempDir();
    writeFiles(root, {
      'tsconfig.json': '{\n\t"extends": "./.svelte-kit/tsconfig.json",\n\t"compilerOptions": { "strict": true, }\n\t// Path aliases\n}\n',
      '.svelte-kit/tsconfig.json': '{ /* generated */ "compilerOptions": {} }\n',
    });
    expect(await checkJsonInputs(root, ['tsconfig.json', '.svelte-kit/tsconfig.json'])).toEqual([]);
  });

  it('a broken tsconfig is named with its line and the fix names it, not the task', async () => {
    const root = tempDir();
    writeFiles(root, { 'tsconfig.json': '{\n  // c\n  "a": 1\n  "b": 2\n}\n', 'tsconfig.base.json': '{ "x": }' });
    const problems = await checkJsonInputs(root, ['tsconfig.json', 'tsconfig.base.json']);
    expect(problems[0]).toMatch(/^tsconfig\.json:4:3: TypeScript cannot read it: .*; fix: edit tsconfig\.json$/);
    expect(problems[1]).toMatch(/^tsconfig\.base\.json:1:\d+: .*; fix: edit tsconfig\.base\.json$/);
  });

  it('a variables file stays strict JSON (Kane reads it so), and its fix names it', async () => {
    const root = tempDir();
    writeFiles(root, { '.testmuai/variables/v.json': '{ // no\n "a": 1 }' });
    const [problem] = await checkJsonInputs(root, ['.testmuai/variables/v.json']);
    expect(problem).toMatch(/^\.testmuai\/variables\/v\.json:1:3: invalid JSON: .*; fix: edit \.testmuai\/variables\/v\.json$/);
  });
});
