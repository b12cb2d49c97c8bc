// What `evidence verify`, `apply` and the report check of a stored run (src/evidence/check-evidence.ts):
// the run's manifest, each attempt's own, and for a best-of run each candidate's (review of 174b4b5: a
// candidate's own manifests were never read, so a rival's rewrite made before the whole run's seal passed).
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { checkRunEvidence } from '../../src/evidence/check-evidence.js';
import type { RunRecord } from '../../src/evidence/run-record.js';
import { sealAttempt } from '../../src/evidence/seal-attempt.js';
import { Redactor } from '../../src/evidence/redact.js';
import { sealRun } from '../../src/evidence/seal.js';
import { verifiedRunRecord } from '../helpers/run-record.js';
import { tempDir, writeFiles } from '../helpers/temp.js';

const record = (runId: string) => () => verifiedRunRecord({ runId });

/** A best-of run folder whose candidates a and b each sealed their attempt 1 and themselves. */
async function bestOfRun(): Promise<string> {
  const run = tempDir();
  writeFiles(run, { 'candidates/a/attempts/01/agent.log': 'a did it\n', 'candidates/b/attempts/01/agent.log': 'b did it\n' });
  for (const name of ['a', 'b']) {
    const dir = path.join(run, 'candidates', name);
    const seal = await sealAttempt(dir, path.join(dir, 'attempts/01'), 1, { redactor: new Redactor({ values: [] }), signingKey: 'k3y' });
    await sealRun(dir, record(name), { redactor: new Redactor({ values: [] }), signingKey: 'k3y', sealed: [seal] });
  }
  return run;
}

it('an honest best-of run is intact', async () => {
  const run = await bestOfRun();
  await sealRun(run, record('top'), { redactor: new Redactor({ values: [] }), signingKey: 'k3y' });
  expect(await checkRunEvidence(run, { signingKey: 'k3y' })).toEqual({ ok: true, problems: [] });
});

it("a candidate's evidence rewritten by a rival before the whole run was sealed is named, though the run's manifest took it", async () => {
  const run = await bestOfRun();
  writeFileSync(path.join(run, 'candidates/b/attempts/01/agent.log'), 'b did nothing\n'); // candidate a's agent, still running
  await sealRun(run, record('top'), { redactor: new Redactor({ values: [] }), signingKey: 'k3y' });
  const check = await checkRunEvidence(run, { signingKey: 'k3y' });
  expect(check.ok).toBe(false);
  // Named once, though both the candidate's manifest and its attempt's list it.
  expect(check.problems).toEqual(['candidate b: attempt 1: modified: candidates/b/attempts/01/agent.log']);
});

it('a candidate stopped before it sealed is covered by the run manifest alone', async () => {
  const run = tempDir();
  writeFiles(run, { 'candidates/c/attempts/01/agent.log': 'stopped\n' });
  await sealRun(run, record('top'), { redactor: new Redactor({ values: [] }), signingKey: 'k3y' });
  expect(await checkRunEvidence(run, { signingKey: 'k3y' })).toEqual({ ok: true, problems: [] });
  writeFileSync(path.join(run, 'candidates/c/attempts/01/agent.log'), 'changed later\n');
  expect((await checkRunEvidence(run, { signingKey: 'k3y' })).problems).toEqual(['modified: candidates/c/attempts/01/agent.log']);
});

it("a sealed candidate's manifest deleted with the rewrite is named: the run's record says the candidate was sealed", async () => {
  const run = await bestOfRun();
  writeFileSync(path.join(run, 'candidates/b/attempts/01/agent.log'), 'b did nothing\n');
  rmSync(path.join(run, 'candidates/b/manifest.json'));
  rmSync(path.join(run, 'candidates/b/attempts/01/manifest.json'));
  const candidates = ['a', 'b'].map((name) => ({ name, durationMs: 5 }));
  await sealRun(run, () => verifiedRunRecord({ runId: 'top', candidates } as Partial<RunRecord>), {
    redactor: new Redactor({ values: [] }),
    signingKey: 'k3y',
  });
  expect((await checkRunEvidence(run, { signingKey: 'k3y' })).problems).toEqual(['candidate b: missing: candidates/b/manifest.json']);
  // A candidate that ended before its run existed (no duration in the record) is not asked for one.
  const early = tempDir();
  writeFiles(early, { 'candidates/c/setup.log': 'never started\n' });
  await sealRun(early, () => verifiedRunRecord({ runId: 'top', candidates: [{ name: 'c', durationMs: null }] } as Partial<RunRecord>), {
    redactor: new Redactor({ values: [] }),
    signingKey: 'k3y',
  });
  expect(await checkRunEvidence(early, { signingKey: 'k3y' })).toEqual({ ok: true, problems: [] });
});
