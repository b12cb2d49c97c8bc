// DSSE (Dead Simple Signing Envelope, github.com/secure-systems-lab/dsse): the signature is over the
// pre-authentication encoding of type and payload, so any DSSE verifier (or plain openssl) can check it.
import { createHash, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import * as z from 'zod';

export const IN_TOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json';

export const EnvelopeSchema = z.looseObject({
  payloadType: z.string(),
  payload: z.string(),
  signatures: z.array(z.looseObject({ keyid: z.string().optional(), sig: z.string() })),
});
export type Envelope = z.infer<typeof EnvelopeSchema>;

/** `DSSEv1 <len> <type> <len> <payload>`, lengths in bytes as ASCII decimals: the bytes that are signed. */
export function preAuthEncoding(payloadType: string, payload: Buffer): Buffer {
  const type = Buffer.from(payloadType, 'utf8');
  return Buffer.concat([Buffer.from(`DSSEv1 ${type.length} `), type, Buffer.from(` ${payload.length} `), payload]);
}

/** The key's id: sha256 of its public key (SPKI DER), hex; a hint for the verifier, never trusted. */
export function keyIdOf(key: KeyObject): string {
  // createPublicKey derives the public half of a private key.
  const der = (key.type === 'private' ? createPublicKey(key) : key).export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('hex');
}

/** Signs `payload` with an Ed25519 private key into a one-signature envelope. */
export function signEnvelope(payload: Buffer, privateKey: KeyObject, payloadType = IN_TOTO_PAYLOAD_TYPE): Envelope {
  const sig = sign(null, preAuthEncoding(payloadType, payload), privateKey);
  return { payloadType, payload: payload.toString('base64'), signatures: [{ keyid: keyIdOf(privateKey), sig: sig.toString('base64') }] };
}

/** The payload bytes when one of the envelope's signatures holds for `publicKey`, else null. */
export function openEnvelope(envelope: Envelope, publicKey: KeyObject): Buffer | null {
  const payload = decodeBase64(envelope.payload);
  if (payload === null) return null;
  const pae = preAuthEncoding(envelope.payloadType, payload);
  // The keyid is unauthenticated (DSSE): every signature is tried, none is picked by it.
  for (const { sig } of envelope.signatures) {
    const bytes = decodeBase64(sig);
    if (bytes !== null && verify(null, pae, publicKey, bytes)) return payload;
  }
  return null;
}

/** Strict base64 (standard or URL-safe alphabet): Buffer.from would skip stray characters silently. */
export function decodeBase64(text: string): Buffer | null {
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(text)) return null;
  return Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
}
