import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyManifest, writeManifest } from '../../src/evidence/manifest.js';
import { tempDir, writeFiles } from '../helpers/temp.js';

function runFolder(): string {
  const dir = tempDir();
  writeFiles(dir, {
    'run.json': '{"schemaVersion":1}\n',
    'attempts/01/attempt.json': '{}\n',
    'attempts/01/agent.log': 'hello\n',
    'attempts/01/verifier/events.ndjson': '{"type":"run_end"}\n',
  });
  writeFileSync(path.join(dir, 'attempts/01/shot.png'), Buffer.from([0x89, 0, 1, 2]));
  return dir;
}

describe('manifest', () => {
  it('lists every file but itself with sha256 and size, posix paths', async () => {
    const dir = runFolder();
    const manifest = await writeManifest(dir);
    expect(Object.keys(manifest.files).sort()).toEqual([
      'attempts/01/agent.log',
      'attempts/01/attempt.json',
      'attempts/01/shot.png',
      'attempts/01/verifier/events.ndjson',
      'run.json',
    ]);
    expect(manifest.files['attempts/01/agent.log']).toEqual({
      sha256: '5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03',
      size: 6,
    });
    expect(manifest.hmac).toBeUndefined();
    expect(JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'))).toEqual(manifest);
    expect(await verifyManifest(dir)).toEqual({ ok: true, problems: [] });
    // Rewriting the manifest does not hash the old one.
    expect(Object.keys((await writeManifest(dir)).files)).not.toContain('manifest.json');
  });

  it('detects a modified, a removed and an added file', async () => {
    const dir = runFolder();
    await writeManifest(dir);
    writeFileSync(path.join(dir, 'attempts/01/agent.log'), 'hellO\n');
    rmSync(path.join(dir, 'attempts/01/shot.png'));
    writeFileSync(path.join(dir, 'attempts/01/extra.txt'), 'x');
    const check = await verifyManifest(dir);
    expect(check.ok).toBe(false);
    expect(check.problems.sort()).toEqual([
      'extra: attempts/01/extra.txt',
      'missing: attempts/01/shot.png',
      'modified: attempts/01/agent.log',
    ]);
  });

  it('signs with a key and rejects a bad, missing or re-keyed signature', async () => {
    const dir = runFolder();
    const signed = await writeManifest(dir, { signingKey: 'k3y-for-tests' });
    expect(signed.hmac).toMatch(/^[0-9a-f]{64}$/);
    expect(await verifyManifest(dir, { signingKey: 'k3y-for-tests' })).toEqual({ ok: true, problems: [] });
    expect((await verifyManifest(dir, { signingKey: 'another-key' })).problems).toEqual([expect.stringMatching(/^signature invalid/)]);

    // Someone edits a file and "fixes" its hash in the manifest: the hashes agree, the HMAC does not.
    writeFileSync(path.join(dir, 'run.json'), '{"schemaVersion":1,"state":"VERIFIED"}\n');
    const forged = { ...signed, files: { ...(await writeManifest(dir)).files }, hmac: signed.hmac };
    writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(forged));
    expect(await verifyManifest(dir)).toEqual({ ok: true, problems: [] });
    expect((await verifyManifest(dir, { signingKey: 'k3y-for-tests' })).problems).toEqual([expect.stringMatching(/^signature invalid/)]);

    await writeManifest(dir);
    expect((await verifyManifest(dir, { signingKey: 'k3y-for-tests' })).problems).toEqual([expect.stringMatching(/^signature missing/)]);
  });

  it('reports a missing or broken manifest', async () => {
    const dir = runFolder();
    expect(await verifyManifest(dir)).toEqual({ ok: false, problems: ['manifest.json is missing'] });
    writeFileSync(path.join(dir, 'manifest.json'), '{"schemaVersion":1}');
    expect(await verifyManifest(dir)).toEqual({ ok: false, problems: ['manifest.json is unreadable or invalid'] });
  });
});
