// No function in src/ is longer than 120 lines (the style guide aims at 100): scripts/function-lengths.js
// measures every function, arrow and method with the TypeScript parser, and fails the check past 120.
// Its measure runs in this process (its module exports it); the script itself is run once, for its
// exit code.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const SCRIPT = path.join(root, 'scripts/function-lengths.js');
const LIMIT = 120;

interface Row {
  file: string;
  line: number;
  lines: number;
  name: string;
}

/** The rows `node scripts/function-lengths.js --json [--over N] targets…` prints, longest first. */
async function lengths(targets: string[], over?: number): Promise<Row[]> {
  // A script, not a module of src/: imported by path so that tsc does not look for its types.
  const { listFunctions } = (await import(SCRIPT)) as { listFunctions: (targets: string[]) => Row[] };
  return listFunctions(targets).filter((r) => over === undefined || r.lines > over);
}

describe('function lengths', () => {
  it('measures each kind of function, a nested one on its own and inside its parent (the check below can fail)', async () => {
    const file = path.join(tempDir(), 'sample.ts');
    const body = Array.from({ length: 130 }, (_, i) => `  const v${i} = ${i};`).join('\n');
    writeFileSync(
      file,
      [
        'export function long() {', // line 1
        body,
        '  const inner = () => {',
        '    return 1;',
        '  };',
        '  return inner;',
        '}', // line 136
        'class C {',
        '  method(): number {',
        '    return 2;',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    expect((await lengths([file])).map((r) => [r.name, r.line, r.lines])).toEqual([
      ['long', 1, 136],
      ['inner', 132, 3],
      ['method', 138, 3],
    ]);
    const over = spawnSync(process.execPath, [SCRIPT, '--over', String(LIMIT), file], { cwd: root, encoding: 'utf8' });
    expect(over.status).toBe(1);
    expect(over.stdout).toContain('long');
  });

  it(`finds none over ${LIMIT} lines in src/`, async () => {
    const over = await lengths(['src'], LIMIT);
    expect(over.map((r) => `${r.file}:${r.line} ${r.name} (${r.lines} lines)`)).toEqual([]);
  });
});
