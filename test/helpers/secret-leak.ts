// Whether a text still shows a secret in any of the encodings an app can print it in (issue #25): plain,
// hex (byte by byte, or as `od -x` little-endian words), base64 or base64url at any offset, whatever
// line breaks, spaces, dump offsets or ASCII columns sit between the pieces.

/** A short description of the first piece of `secret` that `text` still holds, or null when it holds none. */
export function encodedLeak(text: string, secret: string): string | null {
  const pieces = (s: string, n: number) => Array.from({ length: Math.max(0, s.length - n + 1) }, (_, i) => s.slice(i, i + n));
  const bytes = Buffer.from(secret);
  const hex = bytes.toString('hex');
  // `od -x` prints little-endian words: the secret's bytes pairwise reversed, at either alignment.
  const swapped = [0, 1].map((pad) => {
    const b = Buffer.concat([Buffer.alloc(pad), bytes, Buffer.alloc((pad + bytes.length) % 2)]);
    return Buffer.from(b).swap16().toString('hex').slice(4, -4);
  });
  const digits = text.toLowerCase().replace(/[^0-9a-f]/g, '');
  const joined = text.replace(/\s+/g, '');
  for (const p of pieces(secret, 6)) if (text.includes(p)) return `plain ${p}`;
  for (const h of [hex, ...swapped]) for (const p of pieces(h, 12)) if (digits.includes(p)) return `hex ${p}`;
  for (const offset of ['', 'A', 'AB']) {
    const padded = Buffer.from(offset + secret);
    for (const b of [padded.toString('base64'), padded.toString('base64url')])
      for (const p of pieces(b.slice(offset.length + 2, -2), 8)) if (joined.includes(p)) return `base64 ${p}`;
  }
  return null;
}
