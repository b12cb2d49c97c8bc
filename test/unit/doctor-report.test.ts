// doctor prints each check's line as it ends, its name padded to one width: every name a check can carry
// must fit that width, or the lines after it stop lining up.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';
import { describe, expect, it } from 'vitest';
import { DOCTOR_NAME_WIDTH, renderDoctorCheck } from '../../src/reporters/doctor-report.js';
import { ok, warn } from '../../src/core/doctor/doctor-check.js';
import { PassThrough } from 'node:stream';

const root = path.resolve(import.meta.dirname, '../..');

/** The first argument of every ok(…)/warn(…)/fail(…) in the doctor's and check's sources. */
function checkNames(): string[] {
  const names = new Set<string>();
  for (const file of fg.sync(['src/core/doctor/*.ts', 'src/core/check.ts'], { cwd: root })) {
    const text = readFileSync(path.join(root, file), 'utf8');
    for (const match of text.matchAll(/\b(?:ok|warn|fail)\(\s*'([^']+)'/g)) names.add(match[1]!);
  }
  return [...names];
}

function render(...checks: Parameters<typeof renderDoctorCheck>[0][]): string[] {
  const out = new PassThrough();
  let text = '';
  out.setEncoding('utf8').on('data', (d: string) => (text += d));
  for (const check of checks) renderDoctorCheck(check, out);
  return text.split('\n').filter(Boolean);
}

describe('doctor report', () => {
  it('every check name fits the padded width', () => {
    const names = checkNames();
    expect(names).toEqual(expect.arrayContaining(['node', 'playwright', 'signing key', 'sandbox']));
    expect(names.filter((name) => name.length > DOCTOR_NAME_WIDTH)).toEqual([]);
  });

  it('messages start in the same column whatever the name', () => {
    const lines = render(ok('node', 'v20'), warn('signing key', 'readable', 'use a key file'), ok('playwright', '1.58'));
    const columns = lines.map((line) => line.indexOf(line.includes('v20') ? 'v20' : line.includes('readable') ? 'readable' : '1.58'));
    expect(new Set(columns).size).toBe(1);
  });
});
