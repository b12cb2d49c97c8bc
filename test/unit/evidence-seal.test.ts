// Sealing: the final state is visible only after redaction and a manifest that already covers it.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyManifest } from '../../src/evidence/manifest.js';
import { readRunRecord, type RunRecord } from '../../src/evidence/run-record.js';
import { Redactor } from '../../src/evidence/redact.js';
import { sealRun } from '../../src/evidence/seal.js';
import { writeJsonAtomic } from '../../src/evidence/write-json.js';
import { sampleRunRecord } from '../helpers/run-record.js';
import { tempDir, writeFiles } from '../helpers/temp.js';

const SECRET = 'hunter2-secret-value';

const record = sampleRunRecord;

async function runFolder(): Promise<string> {
  const dir = tempDir();
  writeFiles(dir, { 'attempts/01/agent.log': `the token is ${SECRET}\n` });
  await writeJsonAtomic(path.join(dir, 'run.json'), record());
  return dir;
}

const verified = (): RunRecord => record({ state: 'VERIFIED', finishedAt: '2026-11-30T05:00:00.000Z', durationMs: 5 });

describe('sealRun', () => {
  it('RUNNING with the outcome under `sealing` and no manifest until the end; then final, redacted, and covered', async () => {
    const dir = await runFolder();
    let during: RunRecord | null = null;
    let manifestDuring = true;
    const sealed = await sealRun(dir, verified, {
      redactor: new Redactor({ values: [SECRET] }),
      onSealing: async () => {
        during = await readRunRecord(dir);
        manifestDuring = existsSync(path.join(dir, 'manifest.json'));
      },
    });
    expect(during).toMatchObject({ state: 'RUNNING', sealing: { state: 'VERIFIED', reason: null }, finishedAt: null });
    expect(manifestDuring).toBe(false);
    expect(sealed.state).toBe('VERIFIED');
    expect(await readRunRecord(dir)).toMatchObject({ state: 'VERIFIED' });
    expect(readFileSync(path.join(dir, 'run.json'), 'utf8')).not.toContain('sealing');
    expect(readFileSync(path.join(dir, 'attempts/01/agent.log'), 'utf8')).not.toContain(SECRET);
    expect(await verifyManifest(dir)).toEqual({ ok: true, problems: [] });
  });

  it('an outcome that changes while sealing (a Ctrl-C) is what gets sealed, and the manifest still matches', async () => {
    const dir = await runFolder();
    let asks = 0;
    const sealed = await sealRun(
      dir,
      () =>
        ++asks <= 2
          ? verified()
          : record({ state: 'ERROR', reason: 'INTERRUPTED', message: 'late', finishedAt: '2026-11-30T05:00:00.000Z', durationMs: 5 }),
      { redactor: new Redactor({ values: [] }) },
    );
    expect(sealed).toMatchObject({ state: 'ERROR', reason: 'INTERRUPTED' });
    expect(await readRunRecord(dir)).toMatchObject({ state: 'ERROR', reason: 'INTERRUPTED' });
    expect(await verifyManifest(dir)).toMatchObject({ ok: true });
  });

  it('a secret in the record itself is redacted, and the manifest covers the redacted bytes', async () => {
    const dir = await runFolder();
    await sealRun(
      dir,
      () =>
        record({
          state: 'ERROR',
          reason: 'INTERNAL_ERROR',
          message: `failed with ${SECRET}`,
          finishedAt: '2026-11-30T05:00:00.000Z',
          durationMs: 5,
        }),
      { redactor: new Redactor({ values: [SECRET] }), signingKey: 'k3y-k3y-k3y' },
    );
    expect(readFileSync(path.join(dir, 'run.json'), 'utf8')).not.toContain(SECRET);
    expect(await verifyManifest(dir, { signingKey: 'k3y-k3y-k3y' })).toMatchObject({ ok: true });
  });

  it('killed between the manifest and the rename: still RUNNING, and evidence verify says run.json differs', async () => {
    const dir = await runFolder();
    // Simulate the kill: seal, then put the sealing record back as it was just before the rename.
    await sealRun(dir, verified, { redactor: new Redactor({ values: [] }) });
    await writeJsonAtomic(path.join(dir, 'run.json'), {
      ...verified(),
      state: 'RUNNING',
      reason: null,
      finishedAt: null,
      durationMs: null,
      sealing: { state: 'VERIFIED', reason: null, message: null },
    });
    expect(await verifyManifest(dir)).toMatchObject({ ok: false, problems: ['modified: run.json'] });
  });
});
