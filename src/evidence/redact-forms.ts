// Every form a secret takes when an app or agent prints it through one standard tool, precomputed once so
// that one multi-pattern scan finds them all: as is, JSON-escaped, URL-encoded, hex, base64 and base64url
// at any offset (an app that prints `/proc/<pid>/environ` encoded is the agent's code), base32 (`base32`,
// upper or lower case, at any offset), reversed (`rev`), rot13 (`tr A-Za-z N-ZA-Mn-za-m`), UTF-16 LE and BE
// (`iconv -t UTF-16LE`: a secret's bytes with NULs between). Spelled with a separator between characters
// (redact-separated.ts) and percent- or JSON-escaped character by character (redact-views.ts) are found by
// their own scans; spread over lines (redact-wrapped.ts) too.

/** Shorter values would redact ordinary words and numbers all over the evidence. */
export const MIN_SECRET_LENGTH = 4;
/** A secret this long or longer (and no longer than MAX_ENCODED_LENGTH) is also redacted encoded. */
export const MIN_ENCODED_LENGTH = 8;
export const MAX_ENCODED_LENGTH = 4096;

/** The forms of `values` to find as they are; `bytes`: as latin1 strings of their bytes (files are scanned one char per byte). */
export function secretForms(values: readonly string[] | undefined, bytes: boolean): string[] {
  const forms = new Set<string>();
  const as = (text: string) => (bytes ? Buffer.from(text).toString('latin1') : text);
  const add = (v: string) => {
    if (v.trim().length < MIN_SECRET_LENGTH) return;
    forms.add(as(v));
    forms.add(as(JSON.stringify(v).slice(1, -1)));
    forms.add(as(JSON.stringify(JSON.stringify(v).slice(1, -1)).slice(1, -1)));
    forms.add(as(encodeURIComponent(v)));
    // Shorter ones encode to a few characters that ordinary text has; much longer ones (a 64 KB blob)
    // would make the one pattern of every form larger than V8 compiles.
    if (v.length < MIN_ENCODED_LENGTH || v.length > MAX_ENCODED_LENGTH) return;
    forms.add(as([...v].reverse().join('')));
    forms.add(as(rot13(v)));
    const raw = Buffer.from(v);
    forms.add(raw.toString('hex'));
    forms.add(raw.toString('hex').toUpperCase());
    for (const core of encodedCores(raw)) forms.add(core);
    // UTF-16: in a file, its bytes; on a line of text (an ASCII secret), the characters with NULs between.
    for (const utf16 of [Buffer.from(v, 'utf16le'), Buffer.from(v, 'utf16le').swap16()]) {
      forms.add(bytes ? utf16.toString('latin1') : utf16.toString('latin1').replace(/^\0|\0$/g, ''));
    }
  };
  values?.forEach((value) => {
    add(value);
    // A one-line value is its only line, already added.
    for (const part of value.split(/\r?\n/)) if (part.length >= 8) add(part);
  });
  return [...forms];
}

/** The secrets (and lines of multi-line ones) that are also redacted encoded. */
export function encodedValues(values: readonly string[] | undefined): string[] {
  const kept = new Set<string>();
  for (const value of values ?? []) {
    for (const v of [value, ...value.split(/\r?\n/)]) {
      if (v.trim().length >= MIN_SECRET_LENGTH && v.length >= MIN_ENCODED_LENGTH && v.length <= MAX_ENCODED_LENGTH) kept.add(v);
    }
  }
  return [...kept];
}

/**
 * The base64 (both alphabets) and base32 (both cases) characters that depend on `bytes` alone, at each
 * offset they may sit at in a longer encoded text (a whole environment encoded at once): the characters
 * shared with the bytes before or after are left out, so every copy is found wherever it starts. Padding
 * is never part of a core, so a secret is found with or without it.
 */
export function encodedCores(bytes: Buffer): string[] {
  const cores: string[] = [];
  for (const core of radixCores(bytes, 3, 6, (b) => b.toString('base64'))) cores.push(core, core.replaceAll('+', '-').replaceAll('/', '_'));
  for (const core of radixCores(bytes, 5, 5, base32)) cores.push(core, core.toLowerCase());
  return [...new Set(cores)];
}

/** For an encoding of `group` bytes per block and `bits` per character: the cores at each byte offset. */
function radixCores(bytes: Buffer, group: number, bits: number, encode: (b: Buffer) => string): string[] {
  const cores: string[] = [];
  for (let offset = 0; offset < group; offset++) {
    const encoded = encode(Buffer.concat([Buffer.alloc(offset), bytes]));
    const skip = Math.ceil((offset * 8) / bits); // characters that carry bits of the bytes before
    const whole = Math.floor(((offset + bytes.length) * 8) / bits); // characters made of whole bits of ours
    if (whole > skip) cores.push(encoded.slice(skip, whole));
  }
  return cores;
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32, upper case, without padding (node has no base32 of its own). */
function base32(bytes: Buffer): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32[(buffer << (5 - bits)) & 31];
  return out;
}

/** Letters rotated by 13 (`tr A-Za-z N-ZA-Mn-za-m`); everything else as it is. */
function rot13(text: string): string {
  return text.replace(/[A-Za-z]/g, (c) => {
    const code = c.charCodeAt(0);
    const a = code >= 97 ? 97 : 65;
    return String.fromCharCode(((code - a + 13) % 26) + a);
  });
}
