// A shard's output signed by the verify that printed it (docs/ci.md#whose-shard-output-merge-takes). The
// key is made in the verify process when it starts and never leaves its memory; the signature (Ed25519 over
// a fixed prefix and the exact bytes printed) goes beside the output, and the public key to a file the CI
// hands the merge job by another way than the artifact (GitHub: the job's outputs). `merge --shard-keys`
// then takes a shard only when its bytes are the ones signed by the key its own job published: a process
// that rewrote the output after verify wrote it (a leftover of the commit's install scripts) is refused.
import { createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { appendFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import { InputError, ShardSetError } from '../../errors.js';
import { parseJsonBytes, EVIDENCE_FILE_LIMIT } from '../../util/json-file.js';
import { readRegularFile } from '../../util/regular-file.js';

/** What the signature file says it is; also the prefix signed with the bytes, so no other signature of the key can pass for one. */
export const SHARD_SIGNATURE_FORMAT = 'elenchos-shard-signature-v1';
const SignatureSchema = z.strictObject({ format: z.literal(SHARD_SIGNATURE_FORMAT), signature: z.string() });
/** Where the signature of `file` is: beside it, a name `merge`'s `elenchos-shard-*.json` glob does not take. */
export const signatureOf = (file: string): string => `${file}.sig`;
/** The name the public key of shard `index` is published under (`shard-key-2=<key>`). */
export const shardKeyName = (index: number): string => `shard-key-${index}`;

export interface ShardSealer {
  /** Signs what was printed: the envelope to `signatureFile`, `shard-key-<i>=<key>` appended to `keyFile`. Nothing when no shard output was printed. */
  seal(printed: Buffer): Promise<boolean>;
}

/** A key for this verify only (Ed25519, in memory), made before anything of the commit runs. */
export function shardSealer(signatureFile: string, keyFile: string): ShardSealer {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    async seal(printed) {
      const index = shardIndexOf(printed);
      if (index === null) return false; // verify refused before printing a shard output: nothing to vouch for
      const signature = sign(null, signedBytes(printed), privateKey).toString('base64');
      await writeFile(signatureFile, `${JSON.stringify({ format: SHARD_SIGNATURE_FORMAT, signature }, null, 2)}\n`);
      await appendFile(keyFile, `${shardKeyName(index)}=${encodeKey(publicKey)}\n`);
      return true;
    },
  };
}

/** The public key as one line: base64 of its SPKI DER. */
export function encodeKey(publicKey: KeyObject): string {
  return publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
}

/**
 * `--shard-keys`: a JSON object from key names to keys (GitHub: `toJSON(needs.verify.outputs)`, the verify
 * jobs' outputs). Entries of other names are left alone (a job may have other outputs).
 */
export function parseShardKeys(text: string): Map<number, KeyObject> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new InputError(
      '--shard-keys: not JSON; pass the verify jobs\' outputs as one object, e.g. "${{ toJSON(needs.verify.outputs) }}" (docs/ci.md)',
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new InputError('--shard-keys: not a JSON object of "shard-key-<i>": "<key>" (docs/ci.md)');
  const keys = new Map<number, KeyObject>();
  for (const [name, key] of Object.entries(value as Record<string, unknown>)) {
    const index = /^shard-key-([1-9][0-9]*)$/.exec(name)?.[1];
    if (index === undefined || typeof key !== 'string' || key === '') continue;
    const der = decodeBase64(key);
    try {
      if (der === null) throw new Error('not base64');
      keys.set(Number(index), createPublicKey({ key: der, format: 'der', type: 'spki' }));
    } catch {
      throw new InputError(`--shard-keys: ${name} is not a public key (base64 SPKI) as elenchos verify --sign-shard writes it`);
    }
  }
  return keys;
}

/**
 * Refuses `file` (exit 4) unless `<file>.sig` holds a signature over exactly its bytes by the key its
 * shard's job published: the shard a file claims to be is checked against that shard's key, so a file
 * rewritten with another shard's metadata fails as well.
 */
export async function checkShardSeal(
  file: string,
  cwd: string,
  index: number,
  total: number,
  keys: ReadonlyMap<number, KeyObject>,
): Promise<void> {
  const key = keys.get(index);
  const refuse = (why: string) => {
    throw new ShardSetError(`merge refused: shard ${index}/${total} (${file}): ${why}`);
  };
  if (!key) refuse(`no key from its job in --shard-keys (did the job end before verify signed its output?)`);
  const bytes = await readRegularFile(path.resolve(cwd, file), { label: file, maxBytes: EVIDENCE_FILE_LIMIT });
  let signature: Buffer | null;
  try {
    const raw = await readRegularFile(path.resolve(cwd, signatureOf(file)), { label: signatureOf(file), maxBytes: 64 * 1024 });
    signature = decodeBase64(SignatureSchema.parse(parseJsonBytes(raw, signatureOf(file))).signature);
  } catch {
    return refuse(`its signature ${signatureOf(file)} is missing or unreadable (verify --sign-shard writes it beside the output)`);
  }
  // One check says both: a signature by another key (a forger's, another shard's), or these bytes not the ones signed.
  if (signature === null || !verify(null, signedBytes(bytes), key!, signature))
    refuse("the file is not what its job's verify printed and signed (changed after verify wrote it, or signed by another key)");
}

/** The bytes a shard signature covers: the format's name, a newline, the output as printed. */
function signedBytes(printed: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${SHARD_SIGNATURE_FORMAT}\n`), printed]);
}

/** Strict base64: Buffer.from would skip stray characters silently. */
function decodeBase64(text: string): Buffer | null {
  return /^[A-Za-z0-9+/]*={0,2}$/.test(text) ? Buffer.from(text, 'base64') : null;
}

/** The shard index a printed `verify --json` document names, or null when it is not one. */
function shardIndexOf(printed: Buffer): number | null {
  try {
    const index = (JSON.parse(printed.toString('utf8')) as { metadata?: { shard?: { index?: unknown } } }).metadata?.shard?.index;
    return typeof index === 'number' && Number.isInteger(index) && index > 0 ? index : null;
  } catch {
    return null;
  }
}
