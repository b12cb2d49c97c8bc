// An attempt sealed when it ends: what changes in its folder afterwards is named by `evidence verify`,
// except the lines Elenchos itself appends to setup.log later (the setup cache's copy ending).
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyManifest } from '../../src/evidence/manifest.js';
import { appendElenchosText, checkSeals, sealAttempt, sealedListing, type AttemptSeal } from '../../src/evidence/seal-attempt.js';
import { Redactor } from '../../src/evidence/redact.js';
import { sealRun } from '../../src/evidence/seal.js';
import { verifiedRunRecord } from '../helpers/run-record.js';
import { tempDir, writeFiles } from '../helpers/temp.js';

const SECRET = 'attempt-secret-value-1234';

const record = () => verifiedRunRecord();

describe('sealAttempt', () => {
  it('redacts and seals the folder; a later rewrite, addition or deletion is kept out of the run manifest and named', async () => {
    const run = tempDir();
    writeFiles(run, { 'attempts/01/agent.log': `said ${SECRET}\n`, 'attempts/01/app.log': 'app\n', 'attempts/02/agent.log': 'two\n' });
    const dir = path.join(run, 'attempts/01');
    const seal = await sealAttempt(run, dir, 1, { redactor: new Redactor({ values: [SECRET] }), signingKey: 'k3y' });
    expect(readFileSync(path.join(dir, 'agent.log'), 'utf8')).toBe('said [REDACTED]\n');
    expect(await verifyManifest(dir, { signingKey: 'k3y' })).toEqual({ ok: true, problems: [] });
    // The next attempt's agent, same user: rewrites, adds, deletes.
    writeFileSync(path.join(dir, 'agent.log'), 'said nothing\n');
    writeFileSync(path.join(dir, 'planted.txt'), 'x');
    const problems: string[] = [];
    await sealRun(run, record, {
      redactor: new Redactor({ values: [SECRET] }),
      signingKey: 'k3y',
      sealed: [seal],
      onSealsBroken: (p) => problems.push(...p),
    });
    expect(problems).toEqual(['attempt 1: modified: attempts/01/agent.log', 'attempt 1: extra: attempts/01/planted.txt']);
    const check = await verifyManifest(run, { signingKey: 'k3y' });
    expect(check.problems).toEqual(['modified: attempts/01/agent.log', 'extra: attempts/01/planted.txt']);
  });

  it('accepts setup.log grown by exactly what Elenchos appended after the seal, and nothing else', async () => {
    const run = tempDir();
    writeFiles(run, { 'attempts/01/setup.log': '[elenchos] setup cache miss\n' });
    const dir = path.join(run, 'attempts/01');
    const log = path.join(dir, 'setup.log');
    const seal = await sealAttempt(run, dir, 1, { redactor: new Redactor({ values: [] }) });
    const line = '[elenchos] setup cache miss: saved 2 files\n';
    await appendElenchosText(log, line);
    const checked = await checkSeals([seal]);
    expect(checked.problems).toEqual([]);
    expect([...checked.grown.keys()]).toEqual([log]);
    appendFileSync(log, '[elenchos] setup cache hit (written by the app)\n');
    expect((await checkSeals([seal])).problems).toEqual(['attempt 1: modified: attempts/01/setup.log']);
  });

  it("re-signs the attempt's own manifest for such a line when the run is sealed; any other change still shows in both", async () => {
    const run = tempDir();
    writeFiles(run, { 'attempts/01/setup.log': 'installed\n', 'attempts/01/agent.log': 'did it\n' });
    const dir = path.join(run, 'attempts/01');
    const log = path.join(dir, 'setup.log');
    const seal = await sealAttempt(run, dir, 1, { redactor: new Redactor({ values: [] }), signingKey: 'k3y' });
    const line = '[elenchos] setup cache miss: saved 1 files\n';
    await appendElenchosText(log, line);
    await sealRun(run, record, { redactor: new Redactor({ values: [] }), signingKey: 'k3y', sealed: [seal] });
    expect(await verifyManifest(dir, { signingKey: 'k3y' })).toEqual({ ok: true, problems: [] }); // before: modified: setup.log
    expect(await verifyManifest(run, { signingKey: 'k3y' })).toEqual({ ok: true, problems: [] });

    const again = tempDir();
    writeFiles(again, { 'attempts/01/setup.log': 'installed\n', 'attempts/01/agent.log': 'did it\n' });
    const dir2 = path.join(again, 'attempts/01');
    const log2 = path.join(dir2, 'setup.log');
    const seal2 = await sealAttempt(again, dir2, 1, { redactor: new Redactor({ values: [] }), signingKey: 'k3y' });
    await appendElenchosText(log2, line);
    writeFileSync(path.join(dir2, 'agent.log'), 'did nothing\n'); // the next agent's rewrite, beside the honest line
    await sealRun(again, record, { redactor: new Redactor({ values: [] }), signingKey: 'k3y', sealed: [seal2] });
    expect((await verifyManifest(dir2, { signingKey: 'k3y' })).problems).toEqual(['modified: agent.log']);
    expect((await verifyManifest(again, { signingKey: 'k3y' })).problems).toEqual(['modified: attempts/01/agent.log']);
  });

  // Review of 174b4b5: the re-seal vouches only for bytes it checked, never over a touched manifest, and an
  // append racing a seal is counted once.
  it('a setup.log rewritten after the check is not re-sealed: it stays listed as sealed and is named', async () => {
    const run = tempDir();
    writeFiles(run, { 'attempts/01/setup.log': 'installed\n' });
    const dir = path.join(run, 'attempts/01');
    const log = path.join(dir, 'setup.log');
    const seal = await sealAttempt(run, dir, 1, { redactor: new Redactor({ values: [] }), signingKey: 'k3y' });
    const line = '[elenchos] setup cache miss: saved 1 files\n';
    await appendElenchosText(log, line);
    const checked = await checkSeals([seal]);
    expect([...checked.grown.keys()]).toEqual([log]);
    writeFileSync(log, 'installed\n[elenchos] setup cache hit: kept\n'.padEnd(10 + line.length, ' ')); // a leftover process, same size
    const listing = await sealedListing([seal], checked.grown, 'k3y');
    expect(listing['attempts/01']!['setup.log']).toEqual(seal.entries['setup.log']);
    expect((await verifyManifest(dir, { signingKey: 'k3y' })).problems).toEqual(['modified: setup.log']);
  });

  it("an attempt manifest changed by someone is never written over, even beside Elenchos's honest line", async () => {
    const run = tempDir();
    writeFiles(run, { 'attempts/01/setup.log': 'installed\n', 'attempts/01/agent.log': 'did it\n' });
    const dir = path.join(run, 'attempts/01');
    const seal = await sealAttempt(run, dir, 1, { redactor: new Redactor({ values: [] }), signingKey: 'k3y' });
    const forged = readFileSync(path.join(dir, 'manifest.json'), 'utf8').replace('"algorithm"', '"algorithm" ');
    writeFileSync(path.join(dir, 'manifest.json'), forged);
    await appendElenchosText(path.join(dir, 'setup.log'), '[elenchos] setup cache miss: saved 1 files\n');
    const problems: string[] = [];
    await sealRun(run, record, {
      redactor: new Redactor({ values: [] }),
      signingKey: 'k3y',
      sealed: [seal],
      onSealsBroken: (p) => problems.push(...p),
    });
    expect(problems).toEqual(['attempt 1: modified: attempts/01/manifest.json', 'attempt 1: modified: attempts/01/setup.log']);
    expect(readFileSync(path.join(dir, 'manifest.json'), 'utf8')).toBe(forged);
    expect((await verifyManifest(run, { signingKey: 'k3y' })).problems).toEqual([
      'modified: attempts/01/manifest.json',
      'modified: attempts/01/setup.log',
    ]);
  });

  it.each(['append first', 'seal first'])(
    'an append racing the seal is counted once (%s): the honest run verifies intact',
    async (order) => {
      const run = tempDir();
      writeFiles(run, { 'attempts/01/setup.log': 'installed\n' });
      const dir = path.join(run, 'attempts/01');
      const log = path.join(dir, 'setup.log');
      const line = '[elenchos] setup cache miss: saved 1 files\n';
      const jobs =
        order === 'append first'
          ? [appendElenchosText(log, line), sealAttempt(run, dir, 1, { redactor: new Redactor({ values: [] }), signingKey: 'k3y' })]
          : [sealAttempt(run, dir, 1, { redactor: new Redactor({ values: [] }), signingKey: 'k3y' }), appendElenchosText(log, line)];
      const seal = (await Promise.all(jobs)).find((value): value is AttemptSeal => value !== undefined)!;
      await sealRun(run, record, { redactor: new Redactor({ values: [] }), signingKey: 'k3y', sealed: [seal] });
      expect(readFileSync(log, 'utf8')).toBe(`installed\n${line}`);
      expect(await verifyManifest(dir, { signingKey: 'k3y' })).toEqual({ ok: true, problems: [] });
      expect(await verifyManifest(run, { signingKey: 'k3y' })).toEqual({ ok: true, problems: [] });
    },
  );
});
