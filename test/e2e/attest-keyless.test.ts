// `--attest-key sigstore` end to end: the built CLI verifies and merges a real repository and signs the
// verdict keylessly against Sigstore's own test doubles (Fulcio, Rekor, GitHub's token endpoint) on
// 127.0.0.1; `attest verify --certificate-identity --certificate-oidc-issuer --trusted-root` then holds
// only for that workflow, that Sigstore, that commit, a PASSED verdict and the bundle as it was written.
// The CLI runs asynchronously: the mock services answer from this process.
// @module-tag slow
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { FORM_PAGE, FORM_TASK, KANE_CHECK_PAGE, makeProject, processesInside } from '../helpers/project.js';
import { GITHUB_ISSUER, WORKFLOW_IDENTITY, startMockSigstore, type MockSigstore } from '../helpers/sigstore-mock.js';
import { gitSync, tempDir } from '../helpers/temp.js';

let sigstore: MockSigstore;
let other: MockSigstore;
let p: ReturnType<typeof makeProject>;
let dir: string;
let commit: string;

async function cli(args: string[], env: Record<string, string> = {}) {
  const run = await execa(process.execPath, [BIN, ...args], {
    cwd: p.root,
    env: { ...p.env, ...sigstore.env, ...env },
    reject: false,
    // The verdict is exactly the bytes printed: its sha256 is in the attestation.
    stripFinalNewline: false,
    timeout: 120_000,
    forceKillAfterDelay: 1_000,
  });
  return { code: run.exitCode, stdout: String(run.stdout), stderr: String(run.stderr) };
}
const keyless = (file: string, ...more: string[]) =>
  cli([
    'attest',
    'verify',
    file,
    '--certificate-identity',
    WORKFLOW_IDENTITY,
    '--certificate-oidc-issuer',
    GITHUB_ISSUER,
    '--trusted-root',
    sigstore.trustedRoot,
    ...more,
  ]);

beforeAll(async () => {
  sigstore = await startMockSigstore();
  other = await startMockSigstore();
  p = makeProject({
    config: { verifier: KANE_CHECK_PAGE, tasks: ['tasks/form.json'] },
    files: {
      ...FORM_PAGE,
      ...FORM_TASK,
    },
  });
  dir = tempDir();
  commit = gitSync(p.root, 'rev-parse', 'HEAD').trim();
}, 60_000);

afterAll(async () => {
  await sigstore.close();
  await other.close();
  expect(processesInside(p.root), 'processes left').toEqual([]);
});

describe('keyless attestations with the built CLI', () => {
  let attestation: string;
  let verdict: string;

  it('verify and merge sign the verdict with the workflow identity; attest verify holds for it', async () => {
    const shard = path.join(dir, 'shard.json');
    const verified = await cli(['verify', '--json', '--attest', path.join(dir, 'shard.att.json'), '--attest-key', 'sigstore']);
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stderr).toContain(`elenchos: attestation ${path.join(dir, 'shard.att.json')}: PASSED for commit ${commit}`);
    writeFileSync(shard, verified.stdout);
    const held = await keyless(path.join(dir, 'shard.att.json'), '--verdict', shard);
    expect(held.code, held.stderr + held.stdout).toBe(0);
    expect(held.stdout).toBe(
      `attestation holds: PASSED for commit ${commit}, 1 task(s), 3 file(s) as committed, signed by ${WORKFLOW_IDENTITY} (${GITHUB_ISSUER}); guards behind every task: processScan, windowWatch, objectStore, inputsPinned\n`,
    );
    attestation = path.join(dir, 'merged.att.json');
    verdict = path.join(dir, 'merged.json');
    const merged = await cli(['merge', shard, '--json', '--attest', attestation, '--attest-key', 'sigstore']);
    expect(merged.code, merged.stderr).toBe(0);
    writeFileSync(verdict, merged.stdout);
    expect(JSON.parse(readFileSync(attestation, 'utf8')).mediaType).toBe('application/vnd.dev.sigstore.bundle+json;version=0.2');
    expect((await keyless(attestation, '--verdict', verdict)).code).toBe(0);
  });

  it('another workflow, another Sigstore, another verdict file, a changed bundle: refused, exit 1, one line', async () => {
    const otherWorkflow = await cli([
      'attest',
      'verify',
      attestation,
      '--certificate-identity',
      'https://github.com/o/r/.github/workflows/elenchos.yml@refs/pull/7/merge',
      '--certificate-oidc-issuer',
      GITHUB_ISSUER,
      '--trusted-root',
      sigstore.trustedRoot,
    ]);
    expect(otherWorkflow.code).toBe(1);
    expect(otherWorkflow.stderr).toMatch(
      /^elenchos: attestation refused \(identity\): certificate identity error - expected https:\/\/github\.com\/o\/r\/\.github\/workflows\/elenchos\.yml@refs\/pull\/7\/merge, got /,
    );
    const otherRoot = await cli([
      'attest',
      'verify',
      attestation,
      '--certificate-identity',
      WORKFLOW_IDENTITY,
      '--certificate-oidc-issuer',
      GITHUB_ISSUER,
      '--trusted-root',
      other.trustedRoot,
    ]);
    expect(otherRoot.code).toBe(1);
    expect(otherRoot.stderr).toBe('elenchos: attestation refused (certificate): Failed to verify certificate chain\n');
    const shard = await keyless(attestation, '--verdict', path.join(dir, 'shard.json'));
    expect(shard.code).toBe(1);
    expect(shard.stderr).toContain('attestation refused (verdict)');
    const bundle = JSON.parse(readFileSync(attestation, 'utf8'));
    const statement = JSON.parse(Buffer.from(bundle.dsseEnvelope.payload, 'base64').toString('utf8'));
    statement.predicate.passedTests = [...statement.predicate.passedTests, 'tasks/other.json#AC-001'];
    bundle.dsseEnvelope.payload = Buffer.from(JSON.stringify(statement)).toString('base64');
    const changed = path.join(dir, 'changed.att.json');
    writeFileSync(changed, JSON.stringify(bundle));
    const tampered = await keyless(changed);
    expect(tampered.code).toBe(1);
    expect(tampered.stderr).toBe('elenchos: attestation refused (transparency-log): DSSE payload hash mismatch\n');
  });

  it("the keyed path's checks hold too: another commit, and a FAILED verdict signed as FAILED", async () => {
    writeFileSync(path.join(p.root, 'page.html'), '<h1>Tasks</h1><ul></ul>\n');
    gitSync(p.root, 'commit', '-qam', 'the form is gone');
    const later = gitSync(p.root, 'rev-parse', 'HEAD').trim();
    const stale = await keyless(attestation);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toBe(`elenchos: attestation refused (commit): it is about commit ${commit}, not ${later} (HEAD)\n`);
    const failed = path.join(dir, 'failed.att.json');
    const verified = await cli(['verify', '--json', '--attest', failed, '--attest-key', 'sigstore']);
    expect(verified.code).toBe(1);
    expect(verified.stderr).toContain(`: FAILED for commit ${later}`);
    const refused = await keyless(failed);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe('elenchos: attestation refused (result): the verdict is FAILED, not PASSED\n');
  });
});
