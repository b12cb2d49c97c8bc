// `--attest <file> --attest-key <key>` of `verify` and `merge`: sign the verdict the command printed.
import { InputError } from '../errors.js';
import { writeHuman, type CliIO } from '../cli-io.js';

/** `--attest-key sigstore`: sign keylessly with the CI's OIDC identity (docs/ci.md#keyless-attestations-sigstore). */
const KEYLESS = 'sigstore';

export interface AttestFlags {
  attest?: string;
  attestKey?: string;
  json?: boolean;
  config?: string;
}

/**
 * Runs the command (`run` gets the IO to write to) and, with `--attest`, signs the `--json` document it
 * printed. The key is read first (for `sigstore`: an OIDC identity must be at hand): a wrong key is
 * refused before a long verify, not after it.
 */
export async function withAttestation(io: CliIO, flags: AttestFlags, run: (io: CliIO) => Promise<number>): Promise<number> {
  if (flags.attest === undefined && flags.attestKey === undefined) return run(io);
  if (flags.attest === undefined || flags.attestKey === undefined)
    throw new InputError('--attest <file> and --attest-key <key> go together: the file to write and the key to sign it with');
  if (!flags.json)
    throw new InputError('--attest signs the --json verdict: add --json and redirect it to the verdict file (… --json > verdict.json)');
  const sign = await signerFor(flags.attestKey, io);
  const printed: Buffer[] = [];
  const code = await run({ ...io, stdout: recordWrites(io.stdout, printed) });
  const { attestVerdict } = await import('../attest/write-attestation.js');
  const { resolve } = await import('node:path');
  const attested = await attestVerdict({
    cwd: io.cwd,
    document: Buffer.concat(printed).toString('utf8'),
    exitCode: code,
    sign,
    configFile: flags.config,
    env: io.env,
    out: resolve(io.cwd, flags.attest),
  });
  // stderr: stdout is the verdict document alone.
  writeHuman(io.stderr, `elenchos: attestation ${flags.attest}: ${attested.result} for commit ${attested.commit}`);
  return code;
}

/** The signing function `--attest-key` names: `sigstore` (keyless, Sigstore loaded only then) or an Ed25519 private key. */
async function signerFor(attestKey: string, io: CliIO): Promise<(payload: Buffer) => Promise<unknown>> {
  // The commit's code (its setup, its app) runs after this: whatever signs its verdict is out of its reach.
  const { holdSecretEnv, holdSecretFile } = await import('../util/held-secrets.js');
  if (attestKey === KEYLESS) {
    const { IDENTITY_VARIABLES, requireIdentity, signKeyless } = await import('../attest/sigstore-sign.js');
    requireIdentity(io.env);
    for (const name of IDENTITY_VARIABLES) holdSecretEnv(name);
    return (payload) => signKeyless(payload, io.env);
  }
  const { ENV_PREFIX, readSigningKey } = await import('../attest/keys.js');
  const { signEnvelope } = await import('../attest/dsse.js');
  if (attestKey.startsWith(ENV_PREFIX)) holdSecretEnv(attestKey.slice(ENV_PREFIX.length));
  else holdSecretFile(attestKey, io.cwd);
  const privateKey = await readSigningKey(attestKey, io.cwd, io.env);
  return async (payload) => signEnvelope(payload, privateKey);
}

/** `stream` as it is, except that every write is also kept in `into`: the verdict is exactly the bytes printed. */
export function recordWrites(stream: NodeJS.WritableStream, into: Buffer[]): NodeJS.WritableStream {
  return new Proxy(stream, {
    get(target, property) {
      if (property === 'write')
        return (chunk: string | Uint8Array, ...rest: unknown[]) => {
          into.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk));
          return (target.write as (...args: unknown[]) => boolean)(chunk, ...rest);
        };
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
