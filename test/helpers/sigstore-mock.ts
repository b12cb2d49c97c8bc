// Sigstore's own test doubles (@sigstore/mock: a Fulcio CA with its CT log, a Rekor log) served over real
// HTTP on 127.0.0.1, beside the token endpoint GitHub Actions gives a job with `id-token: write`, and the
// trust material a verifier needs (a trusted_root.json built from the mock's CA and log keys). No network.
//
// The handlers come from the package's modules, not its `mockFulcio()`/`mockRekor()`: those intercept
// http.request in this process with nock, and the signer here must reach a real server.
import { generateKeyPairSync } from 'node:crypto';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fulcioHandler, initializeCA, initializeCTLog } from '@sigstore/mock/dist/fulcio/index.js';
import { initializeTLog, rekorHandler } from '@sigstore/mock/dist/rekor/index.js';
import { tempDir } from './temp.js';

export const GITHUB_ISSUER = 'https://token.actions.githubusercontent.com';
/** The identity Fulcio certifies for a GitHub workflow run: the workflow file at its ref. */
export const WORKFLOW_IDENTITY = 'https://github.com/o/r/.github/workflows/elenchos.yml@refs/heads/main';
const TOKEN_AUTH = 'runtime-token-for-this-job';

export interface MockSigstore {
  url: string;
  /** trusted_root.json of this instance (its CA, CT log and Rekor keys). */
  trustedRoot: string;
  /** The environment of a GitHub Actions job with `id-token: write`, pointed at these services. */
  env: Record<string, string>;
  /** The OIDC token requests seen (their query and authorization), to prove the audience and runtime token. */
  tokenRequests: { audience: string | null; authorization: string | undefined }[];
  close(): Promise<void>;
}

/** An unsigned JWT as the mock Fulcio reads it (it decodes, it does not check signatures). */
function oidcToken(claims: Record<string, string>): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.`;
}

/** Starts the mock services; `identity` is the certificate's subject (the mock takes it from the token as given). */
export async function startMockSigstore(options: { identity?: string; issuer?: string; sha?: string } = {}): Promise<MockSigstore> {
  const keys = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const ctlog = await initializeCTLog(keys);
  const ca = await initializeCA(keys, ctlog);
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const tlog = await initializeTLog(url, generateKeyPairSync('ec', { namedCurve: 'prime256v1' }));
  // Real Fulcio puts `https://github.com/` + the token's job_workflow_ref in the certificate; the mock
  // copies one claim as it is, so the claim carries the whole URI.
  const handlers = [fulcioHandler(ca, { subjectClaim: 'job_workflow_ref' }), rekorHandler(tlog)];
  const token = oidcToken({
    iss: options.issuer ?? GITHUB_ISSUER,
    aud: 'sigstore',
    sub: 'repo:o/r:ref:refs/heads/main',
    job_workflow_ref: options.identity ?? WORKFLOW_IDENTITY,
    repository: 'o/r',
    sha: options.sha ?? '0'.repeat(40),
    event_name: 'push',
  });
  const tokenRequests: MockSigstore['tokenRequests'] = [];
  server.on('request', (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const requested = new URL(request.url ?? '/', url);
      if (request.method === 'GET' && requested.pathname === '/token') {
        tokenRequests.push({ audience: requested.searchParams.get('audience'), authorization: request.headers.authorization });
        const allowed = request.headers.authorization === `Bearer ${TOKEN_AUTH}`;
        response.writeHead(allowed ? 200 : 403, { 'content-type': 'application/json' });
        response.end(allowed ? JSON.stringify({ value: token }) : '{}');
        return;
      }
      const handler = handlers.find((h) => request.method === 'POST' && h.path === requested.pathname);
      if (!handler) {
        response.writeHead(404).end();
        return;
      }
      void handler.fn(Buffer.concat(chunks).toString('utf8')).then((answer) => {
        response.writeHead(answer.statusCode, { 'content-type': answer.contentType ?? 'text/plain' });
        response.end(answer.response);
      });
    });
  });
  const trustedRoot = path.join(tempDir('sigstore-root-'), 'trusted_root.json');
  writeFileSync(trustedRoot, JSON.stringify(trustedRootOf(url, Buffer.from(ca.rootCertificate.buffer), tlog.publicKey, ctlog)));
  return {
    url,
    trustedRoot,
    env: {
      ELENCHOS_SIGSTORE_FULCIO_URL: url,
      ELENCHOS_SIGSTORE_REKOR_URL: url,
      ACTIONS_ID_TOKEN_REQUEST_URL: `${url}/token?api-version=2.0`,
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: TOKEN_AUTH,
      SIGSTORE_ID_TOKEN: '',
      NO_PROXY: '127.0.0.1',
      no_proxy: '127.0.0.1',
    },
    tokenRequests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The Sigstore trusted root (protobuf-specs TrustedRoot, JSON) of the mock: its CA, Rekor and CT log keys. */
function trustedRootOf(url: string, caCertificate: Buffer, tlogKey: Buffer, ctlog: { publicKey: Buffer; logID: ArrayBufferView }) {
  // Valid from before anything was signed: the verifier requires the keys valid at the entry's time.
  const validFor = { start: new Date(Date.now() - 3_600_000).toISOString() };
  const log = (key: Buffer, keyId: Buffer) => ({
    baseUrl: url,
    hashAlgorithm: 'SHA2_256',
    publicKey: { rawBytes: key.toString('base64'), keyDetails: 'PKIX_ECDSA_P256_SHA_256', validFor },
    logId: { keyId: keyId.toString('base64') },
  });
  return {
    mediaType: 'application/vnd.dev.sigstore.trustedroot+json;version=0.1',
    tlogs: [log(tlogKey, createHash('sha256').update(tlogKey).digest())],
    certificateAuthorities: [
      {
        subject: { organization: 'sigstore.mock', commonName: 'sigstore' },
        uri: url,
        certChain: { certificates: [{ rawBytes: caCertificate.toString('base64') }] },
        validFor,
      },
    ],
    ctlogs: [log(ctlog.publicKey, Buffer.from(ctlog.logID.buffer as ArrayBuffer))],
    timestampAuthorities: [],
  };
}
