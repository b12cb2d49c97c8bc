// `merge --junit` of verify's JSON output is the very JUnit `verify --junit` wrote: every criterion's
// description and note survive the trip through the run record.
// @module-tag slow
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.js';
import { FORM_PAGE, FORM_TASK, KANE_CHECK_PAGE, makeProject, processesInside } from '../helpers/project.js';
import { tempDir } from '../helpers/temp.js';

let roots: string[] = [];
afterEach(() => {
  for (const root of roots) expect(processesInside(root), `processes left in ${root}`).toEqual([]);
  roots = [];
});

describe('elenchos merge --junit', () => {
  it('equals verify --junit for the same runs (a passing and a failing task)', async () => {
    const p = makeProject({
      config: { verifier: KANE_CHECK_PAGE },
      files: {
        ...FORM_PAGE,
        ...FORM_TASK,
      },
    });
    roots.push(p.root);
    const dir = tempDir();
    const verified = await runMain(['verify', '--json', '--junit', path.join(dir, 'verify.xml')], p.root, p.env);
    expect(verified.code, verified.stderr).toBe(1);
    writeFileSync(path.join(dir, 'shard.json'), verified.stdout);
    const merged = await runMain(['merge', path.join(dir, 'shard.json'), '--junit', path.join(dir, 'merge.xml')], p.root);
    expect(merged.code, merged.stderr).toBe(1);
    const xml = readFileSync(path.join(dir, 'verify.xml'), 'utf8');
    expect(xml).toContain('name="AC-002: criterion 2"');
    expect(xml).toContain('<failure message="FAIL: product failure at step 2">');
    expect(readFileSync(path.join(dir, 'merge.xml'), 'utf8')).toBe(xml);
  });
});
