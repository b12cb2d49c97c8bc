// `attest verify --certificate-identity --certificate-oidc-issuer`: a keyless attestation's Sigstore bundle
// checked (certificate chain to Fulcio, its SCT, the Rekor entry and its signed timestamp, the DSSE
// signature, the certificate's identity and issuer); what it signed is then checked like a keyed one.
// The only importer of the @sigstore/* packages (loaded only for keyless verification).
import { bundleFromJSON, isBundleWithDsseEnvelope } from '@sigstore/bundle';
import { TrustedRoot } from '@sigstore/protobuf-specs';
import { getTrustedRoot } from '@sigstore/tuf';
import { PolicyError, VerificationError, Verifier, toSignedEntity, toTrustMaterial } from '@sigstore/verify';
import path from 'node:path';
import { ElenchosError, InputError } from '../errors.js';
import { INPUT_FILE_LIMIT, readRegularFile } from '../util/regular-file.js';
import { IN_TOTO_PAYLOAD_TYPE } from './dsse.js';
import { AttestationRefusedError } from './refused.js';

export interface KeylessPolicy {
  /** The certificate's subject alternative name: on GitHub Actions the workflow, `https://github.com/o/r/.github/workflows/x.yml@refs/heads/main`. */
  identity: string;
  /** The OIDC issuer the certificate names: `https://token.actions.githubusercontent.com` on GitHub Actions. */
  issuer: string;
  /** A Sigstore trusted root (JSON) to verify against; default: the public-good instance's, through its TUF repository. */
  trustedRoot?: string;
}

/** Which check a sigstore verification error is, named like the keyed path's checks. */
const CHECK_OF: Record<string, string> = {
  UNTRUSTED_SIGNER_ERROR: 'identity',
  CERTIFICATE_ERROR: 'certificate',
  PUBLIC_KEY_ERROR: 'certificate',
  SIGNATURE_ERROR: 'signature',
  TIMESTAMP_ERROR: 'transparency-log',
};

/** The signed statement bytes of a keyless attestation, once every Sigstore check and the policy hold. */
export async function openKeylessBundle(json: unknown, file: string, policy: KeylessPolicy, cwd: string): Promise<Buffer> {
  let bundle: ReturnType<typeof bundleFromJSON>;
  try {
    bundle = bundleFromJSON(json);
  } catch {
    throw new AttestationRefusedError('envelope', `${file} is not a Sigstore bundle (written by --attest-key sigstore)`);
  }
  if (!isBundleWithDsseEnvelope(bundle) || bundle.content.dsseEnvelope.payloadType !== IN_TOTO_PAYLOAD_TYPE)
    throw new AttestationRefusedError('envelope', `${file} does not hold a DSSE envelope of ${IN_TOTO_PAYLOAD_TYPE}`);
  const verifier = new Verifier(toTrustMaterial(await trustedRoot(policy.trustedRoot, cwd)));
  try {
    verifier.verify(toSignedEntity(bundle), { subjectAlternativeName: policy.identity, extensions: { issuer: policy.issuer } });
  } catch (error) {
    if (!(error instanceof VerificationError || error instanceof PolicyError)) throw error;
    const check = CHECK_OF[error.code] ?? (error.code.startsWith('TLOG_') ? 'transparency-log' : 'signature');
    throw new AttestationRefusedError(check, `${error.message}${check === 'signature' ? ' (signed by another, or changed since)' : ''}`);
  }
  return Buffer.from(bundle.content.dsseEnvelope.payload);
}

async function trustedRoot(file: string | undefined, cwd: string): Promise<TrustedRoot> {
  if (file === undefined) {
    try {
      return await getTrustedRoot();
    } catch (error) {
      throw new ElenchosError(
        `attest verify: cannot fetch Sigstore's trusted root (${(error as Error).message}); on a machine without network pass --trusted-root <trusted_root.json>`,
        { cause: error },
      );
    }
  }
  let value: unknown;
  try {
    value = JSON.parse((await readRegularFile(path.resolve(cwd, file), { label: file, maxBytes: INPUT_FILE_LIMIT })).toString('utf8'));
  } catch (error) {
    throw new InputError(`--trusted-root ${(error as Error).message}; pass a Sigstore trusted root (trusted_root.json)`, { cause: error });
  }
  try {
    const root = TrustedRoot.fromJSON(value);
    if (root.certificateAuthorities.length === 0 || root.tlogs.length === 0)
      throw new Error('no certificate authority or no transparency log');
    return root;
  } catch (error) {
    throw new InputError(`--trusted-root ${file}: not a Sigstore trusted root (${(error as Error).message})`, { cause: error });
  }
}
