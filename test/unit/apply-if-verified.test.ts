// `run --apply/--commit/--branch` (core/stored-runs/apply-run.ts applyIfVerified): the one place a plain
// run and a best-of run take their change at the end. Only a VERIFIED run whose caller asked is applied.
import { describe, expect, it } from 'vitest';
import { applyIfVerified } from '../../src/core/stored-runs/apply-run.js';
import { tempDir } from '../helpers/temp.js';

describe('applyIfVerified', () => {
  const at = { cwd: tempDir(), env: {} };

  it('nothing when no flag asked for it, even VERIFIED', async () => {
    expect(await applyIfVerified({ state: 'VERIFIED', runId: 'r1' }, {}, at)).toBeNull();
    expect(await applyIfVerified({ state: 'VERIFIED', runId: 'r1' }, { apply: false, commit: false }, at)).toBeNull();
  });

  it.each(['FAILED', 'ERROR', 'RUNNING'] as const)('nothing when the run ended %s, whatever was asked', async (state) => {
    expect(await applyIfVerified({ state, runId: 'r1' }, { apply: true, commit: true, branch: true }, at)).toBeNull();
  });

  it('a VERIFIED run asked for is looked up as `elenchos apply` would (here: no such run, refused)', async () => {
    await expect(applyIfVerified({ state: 'VERIFIED', runId: 'r1' }, { branch: 'x' }, at)).rejects.toThrow();
  });
});
