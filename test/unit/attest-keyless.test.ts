// Keyless attestations (`--attest-key sigstore`) against Sigstore's own test doubles on 127.0.0.1: the
// statement is signed with a Fulcio certificate for the workflow's OIDC identity and logged in Rekor;
// the bundle holds only for that identity and issuer, that trust root, that payload, that log entry.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AttestationRefusedError } from '../../src/attest/refused.js';
import { requireIdentity, signKeyless, KeylessSigningError } from '../../src/attest/sigstore-sign.js';
import { openKeylessBundle, type KeylessPolicy } from '../../src/attest/sigstore-verify.js';
import { InputError } from '../../src/errors.js';
import { GITHUB_ISSUER, WORKFLOW_IDENTITY, startMockSigstore, type MockSigstore } from '../helpers/sigstore-mock.js';
import { tempDir } from '../helpers/temp.js';

let sigstore: MockSigstore;
let other: MockSigstore;
const STATEMENT = Buffer.from(JSON.stringify({ _type: 'https://in-toto.io/Statement/v1', subject: [], predicate: { result: 'PASSED' } }));

beforeAll(async () => {
  sigstore = await startMockSigstore();
  other = await startMockSigstore();
});
afterAll(async () => {
  await sigstore.close();
  await other.close();
});

const policy = (over: Partial<KeylessPolicy> = {}): KeylessPolicy => ({
  identity: WORKFLOW_IDENTITY,
  issuer: GITHUB_ISSUER,
  trustedRoot: sigstore.trustedRoot,
  ...over,
});
/** The refusal `openKeylessBundle` throws for `bundle`, as check and message. */
async function refusal(bundle: unknown, over: Partial<KeylessPolicy> = {}): Promise<{ check: string; message: string }> {
  const error = await openKeylessBundle(bundle, 'att.json', policy(over), tempDir()).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(AttestationRefusedError);
  return { check: (error as AttestationRefusedError).check, message: (error as Error).message };
}
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe('keyless signing and its check', () => {
  let bundle: Awaited<ReturnType<typeof signKeyless>>;
  beforeAll(async () => {
    bundle = await signKeyless(STATEMENT, sigstore.env);
  });

  it('signs the statement as a DSSE envelope in a Sigstore bundle: a Fulcio certificate and one Rekor entry', () => {
    // sigstore-js's legacyCompatibility (an intoto log entry, as npm provenance) writes a v0.2 bundle with the chain.
    expect(bundle.mediaType).toBe('application/vnd.dev.sigstore.bundle+json;version=0.2');
    expect(bundle.dsseEnvelope?.payloadType).toBe('application/vnd.in-toto+json');
    expect(Buffer.from(bundle.dsseEnvelope!.payload, 'base64').equals(STATEMENT)).toBe(true);
    expect(bundle.verificationMaterial.x509CertificateChain?.certificates.length).toBeGreaterThan(0);
    expect(bundle.verificationMaterial.tlogEntries).toHaveLength(1);
    expect(bundle.verificationMaterial.tlogEntries[0]!.kindVersion).toEqual({ kind: 'intoto', version: '0.0.2' });
    // GitHub's token endpoint was asked for the sigstore audience, with the job's runtime token.
    expect(sigstore.tokenRequests.at(-1)).toEqual({ audience: 'sigstore', authorization: 'Bearer runtime-token-for-this-job' });
  });

  it('holds for its identity, issuer and trust root, and gives back exactly what was signed', async () => {
    const payload = await openKeylessBundle(bundle, 'att.json', policy(), tempDir());
    expect(payload.equals(STATEMENT)).toBe(true);
  });

  it('another workflow, another branch or another issuer is refused (identity)', async () => {
    const otherWorkflow = await refusal(bundle, { identity: 'https://github.com/o/r/.github/workflows/other.yml@refs/heads/main' });
    expect(otherWorkflow.check).toBe('identity');
    expect(otherWorkflow.message).toContain(`got ${WORKFLOW_IDENTITY}`);
    const pullRequest = await refusal(bundle, { identity: 'https://github.com/o/r/.github/workflows/elenchos.yml@refs/pull/7/merge' });
    expect(pullRequest.check).toBe('identity');
    expect((await refusal(bundle, { issuer: 'https://gitlab.com' })).check).toBe('identity');
  });

  it('a bundle from another Sigstore (its CA not in the trust root) is refused (certificate)', async () => {
    const foreign = await signKeyless(STATEMENT, other.env);
    expect((await refusal(foreign)).check).toBe('certificate');
    // …and that Sigstore's own root accepts it: the refusal is the trust root, nothing else.
    expect((await openKeylessBundle(foreign, 'att.json', policy({ trustedRoot: other.trustedRoot }), tempDir())).equals(STATEMENT)).toBe(
      true,
    );
  });

  it('a changed payload, a changed signature, a missing or forged log entry are refused', async () => {
    const changed = copy(bundle);
    changed.dsseEnvelope!.payload = Buffer.from(JSON.stringify({ predicate: { result: 'PASSED', forged: true } })).toString('base64');
    expect(await refusal(changed)).toMatchObject({ check: 'transparency-log', message: expect.stringContaining('payload hash mismatch') });
    const resigned = copy(bundle);
    const sig = Buffer.from(resigned.dsseEnvelope!.signatures[0]!.sig, 'base64');
    sig[sig.length - 1] = sig[sig.length - 1]! ^ 1;
    resigned.dsseEnvelope!.signatures[0]!.sig = sig.toString('base64');
    expect((await refusal(resigned)).check).toBe('transparency-log');
    const unlogged = copy(bundle);
    unlogged.verificationMaterial.tlogEntries = [];
    expect((await refusal(unlogged)).check).toBe('transparency-log');
    const forgedPromise = copy(bundle);
    const entry = forgedPromise.verificationMaterial.tlogEntries[0]!;
    entry.integratedTime = String(Number(entry.integratedTime) + 1);
    expect((await refusal(forgedPromise)).check).toBe('transparency-log');
  });

  it('a keyed envelope or any other JSON is not a bundle (envelope)', async () => {
    expect((await refusal({ payloadType: 'application/vnd.in-toto+json', payload: '', signatures: [] })).check).toBe('envelope');
    expect((await refusal({ hello: 1 })).check).toBe('envelope');
  });

  it('a trusted root that is not one is bad input', async () => {
    const error = await openKeylessBundle(bundle, 'att.json', policy({ trustedRoot: 'missing.json' }), tempDir()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message).toMatch(/^--trusted-root /);
  });
});

describe('the OIDC identity', () => {
  it('none in the environment: refused before anything runs', () => {
    expect(() => requireIdentity({})).toThrow(InputError);
    expect(() => requireIdentity({ ACTIONS_ID_TOKEN_REQUEST_URL: 'http://127.0.0.1:1/token' })).toThrow(
      'give the job `permissions: id-token: write`',
    );
    expect(() => requireIdentity({ SIGSTORE_ID_TOKEN: 'a.b.c' })).not.toThrow();
  });

  it('a token endpoint that refuses is a signing failure that names GitHub, never the token', async () => {
    const env = { ...sigstore.env, ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'wrong' };
    const error = await signKeyless(STATEMENT, env).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KeylessSigningError);
    expect((error as KeylessSigningError).exitCode).toBe(2);
    expect((error as Error).message).toContain('GitHub refused an OIDC token (HTTP 403)');
    expect((error as Error).message).not.toContain('wrong');
  });
});
