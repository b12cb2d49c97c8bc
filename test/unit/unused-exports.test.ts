// No export of src/ lives only for its tests: scripts/unused-exports.js lists every export that no module
// of src/, scripts/, bench/ or bin/ imports, its own file never uses and the library API does not re-export.
// The script runs as a process on the small tree (its exit code is part of what it promises); this
// repository's own tree is read in this process, through the function the script exports.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir, writeFiles } from '../helpers/temp.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const SCRIPT = path.join(root, 'scripts/unused-exports.js');

/** `node scripts/unused-exports.js --json --root at`: its exit code and what it lists. */
function unused(at: string): { status: number | null; names: string[] } {
  const run = spawnSync(process.execPath, [SCRIPT, '--json', '--root', at], { cwd: root, encoding: 'utf8' });
  if (run.status !== 0 && run.status !== 1) throw new Error(`unused-exports.js failed: ${run.stderr}`);
  const rows = JSON.parse(run.stdout) as { file: string; name: string }[];
  return { status: run.status, names: rows.map((r) => `${r.file}:${r.name}`) };
}

describe('unused exports', () => {
  it('flags an export only tests or fixtures use, in each form an export takes, and nothing a real caller reaches', () => {
    const at = tempDir();
    writeFiles(at, {
      'src/index.ts': "export { api } from './lib/api.js';\nexport * from './lib/errors.js';\n",
      'src/lib/api.ts': 'export function api() {}\n',
      'src/lib/errors.ts': 'export class OopsError extends Error {}\n',
      'src/lib/a.ts': [
        'export function imported() {}',
        'export function testsOnly() {}',
        'export const ownUse = 1, deadConst = 2;',
        'export function caller() { return ownUse; }',
        'export interface DeadType { a: number }',
        'type Hidden = number;',
        'export { Hidden };',
        'export default class Loaded {}',
        '',
      ].join('\n'),
      'src/lib/b.ts': "import { imported, caller } from './a.js';\nexport const b = [imported, caller];\n",
      'src/lib/ns.ts': 'export const viaNamespace = 1;\n',
      'src/lib/dyn.ts': 'export const named = 1;\nexport const notNamed = 2;\n',
      'src/lib/dist.ts': 'export const fromScript = 1;\nexport const fromFixture = 2;\n',
      'src/use.ts': [
        "import * as ns from './lib/ns.js';",
        "export const x = async () => { const { named } = await import('./lib/dyn.js'); return [ns, named]; };",
        '',
      ].join('\n'),
      'scripts/s.js': "import { fromScript } from '../dist/lib/dist.js';\nconsole.log(fromScript, b);\n",
      'test/t.test.ts': "import { testsOnly, deadConst } from '../src/lib/a.js';\nimport { b } from '../src/lib/b.js';\n",
      'test/fixtures/f.mjs': "import { fromFixture } from '../../dist/lib/dist.js';\n",
    });
    const result = unused(at);
    expect(result.names.sort()).toEqual([
      'src/lib/a.ts:DeadType',
      'src/lib/a.ts:Hidden',
      'src/lib/a.ts:deadConst',
      'src/lib/a.ts:testsOnly',
      'src/lib/b.ts:b',
      'src/lib/dist.ts:fromFixture',
      'src/lib/dyn.ts:notNamed',
      'src/use.ts:x',
    ]);
    expect(result.status).toBe(1);
    // And exit 0 with nothing listed when every export has a caller.
    const clean = tempDir();
    writeFiles(clean, { 'src/index.ts': "export { api } from './api.js';\n", 'src/api.ts': 'export function api() {}\n' });
    expect(unused(clean)).toEqual({ status: 0, names: [] });
  });

  it('finds none in this repository (remove the export, and its tests, or use it)', async () => {
    // A script, not a module of src/: imported by path so that tsc does not look for its types.
    const { unusedExports } = (await import(SCRIPT)) as { unusedExports: (root: string) => { file: string; name: string }[] };
    expect(unusedExports(root).map((r) => `${r.file}:${r.name}`)).toEqual([]);
  });
});
