// `--attest-key sigstore`: the same in-toto statement, signed keylessly. Fulcio certifies a fresh key for the
// CI's OIDC identity (on GitHub Actions: the workflow), Rekor logs the signature; the result is a Sigstore
// bundle holding the DSSE envelope. The only importer of `sigstore` (loaded only for keyless signing).
import { attest, type Bundle } from 'sigstore';
import { ElenchosError, InputError } from '../errors.js';
import { IN_TOTO_PAYLOAD_TYPE } from './dsse.js';

/** A private Sigstore instance (and the tests' mock services) instead of the public-good one. */
export const FULCIO_URL_VARIABLE = 'ELENCHOS_SIGSTORE_FULCIO_URL';
export const REKOR_URL_VARIABLE = 'ELENCHOS_SIGSTORE_REKOR_URL';
/** An OIDC identity token given directly (cosign's variable): CIs other than GitHub Actions. */
export const ID_TOKEN_VARIABLE = 'SIGSTORE_ID_TOKEN';

/** What GitHub Actions gives a job with `permissions: id-token: write`. */
const GITHUB_TOKEN_URL = 'ACTIONS_ID_TOKEN_REQUEST_URL';
const GITHUB_TOKEN_AUTH = 'ACTIONS_ID_TOKEN_REQUEST_TOKEN';
/** Whatever mints an identity to sign with: no child of the signing Elenchos gets them (util/held-secrets.ts). */
export const IDENTITY_VARIABLES: readonly string[] = [ID_TOKEN_VARIABLE, GITHUB_TOKEN_URL, GITHUB_TOKEN_AUTH];
/** The audience Fulcio accepts. */
const AUDIENCE = 'sigstore';

/** A Sigstore service that could not sign (unreachable, refused the token): exit 2, the run's own verdict stands in the log. */
export class KeylessSigningError extends ElenchosError {
  override readonly code = 'ELENCHOS_KEYLESS_SIGNING';
}

/** Refuses at once, before a long verify, when no OIDC identity can be had in this environment. */
export function requireIdentity(env: NodeJS.ProcessEnv): void {
  if (env[ID_TOKEN_VARIABLE]) return;
  if (env[GITHUB_TOKEN_URL] && env[GITHUB_TOKEN_AUTH]) return;
  throw new InputError(
    `--attest-key sigstore: no OIDC identity to sign with; on GitHub Actions give the job \`permissions: id-token: write\`, elsewhere set ${ID_TOKEN_VARIABLE} (docs/ci.md#keyless-attestations-sigstore)`,
  );
}

/** Signs `payload` (the statement) keylessly into a Sigstore bundle (v0.3, a DSSE envelope, one Rekor entry). */
export async function signKeyless(payload: Buffer, env: NodeJS.ProcessEnv): Promise<Bundle> {
  requireIdentity(env);
  try {
    return await attest(payload, IN_TOTO_PAYLOAD_TYPE, {
      fulcioURL: env[FULCIO_URL_VARIABLE] || undefined,
      rekorURL: env[REKOR_URL_VARIABLE] || undefined,
      identityProvider: { getToken: () => identityToken(env) },
      // Rekor's `intoto` entry kind (as npm provenance logs): it holds the envelope's signature and payload
      // hash as signed, so Sigstore's own mock Rekor yields an entry the verifier can check (docs/ci.md).
      legacyCompatibility: true,
    });
  } catch (error) {
    if (error instanceof ElenchosError) throw error;
    throw new KeylessSigningError(`--attest-key sigstore: signing failed: ${describe(error)}`, { cause: error });
  }
}

/** The OIDC token: given directly, or requested from GitHub for the `sigstore` audience. */
async function identityToken(env: NodeJS.ProcessEnv): Promise<string> {
  const given = env[ID_TOKEN_VARIABLE];
  if (given) return given;
  const url = new URL(env[GITHUB_TOKEN_URL]!);
  url.searchParams.set('audience', AUDIENCE);
  const response = await fetch(url, {
    headers: { Accept: 'application/json', Authorization: `Bearer ${env[GITHUB_TOKEN_AUTH]}` },
    signal: AbortSignal.timeout(30_000),
  });
  if (!response.ok) throw new KeylessSigningError(`--attest-key sigstore: GitHub refused an OIDC token (HTTP ${response.status})`);
  const body = (await response.json()) as { value?: unknown };
  if (typeof body.value !== 'string' || body.value === '')
    throw new KeylessSigningError('--attest-key sigstore: GitHub answered without an OIDC token');
  return body.value;
}

/** One line from what sigstore throws, with the causes it wraps (the service's answer); never a token. */
function describe(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error; e !== undefined && parts.length < 3; e = (e as { cause?: unknown } | null)?.cause)
    parts.push((e instanceof Error ? e.message : String(e)).split('\n')[0]!);
  return parts.join(': ').replace(/eyJ[\w-]+\.[\w-]+\.[\w-]*/g, '<token>');
}
