// Whether a text still shows a secret in any of the encodings an app or agent can print it in with one
// standard tool: plain, hex (byte by byte, or as `od -x` little-endian words), base64 or base64url and
// base32 (either case) at any offset, whatever line breaks, spaces, dump offsets or ASCII columns sit
// between the pieces; UTF-16 (NULs between), spelled with separators (any one or two characters between
// each), reversed, rot13, percent- or JSON-escaped character by character. And every stored form of a
// run folder to run it on: each file's bytes, gzip members unpacked (tar entry names and link targets are
// in them as bytes), git's binary patch hunks inflated, and the names and link targets of the tree itself.
import { readdirSync, readFileSync, readlinkSync, lstatSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync, inflateSync } from 'node:zlib';

const pieces = (s: string, n: number) => Array.from({ length: Math.max(0, s.length - n + 1) }, (_, i) => s.slice(i, i + n));
const rot13 = (s: string) =>
  s.replace(/[A-Za-z]/g, (c) => String.fromCharCode(((c.charCodeAt(0) - (c >= 'a' ? 97 : 65) + 13) % 26) + (c >= 'a' ? 97 : 65)));
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
function base32(bytes: Buffer): string {
  let bits = '';
  for (const b of bytes) bits += b.toString(2).padStart(8, '0');
  let out = '';
  for (let i = 0; i + 5 <= bits.length; i += 5) out += BASE32[Number.parseInt(bits.slice(i, i + 5), 2)];
  return out;
}

/** The texts a secret may be read from in `text` once undone: each decoding one of the encodings above undoes. */
function decodedTexts(text: string): { how: string; text: string }[] {
  const out = [
    { how: 'plain', text },
    { how: 'utf-16 (NULs removed)', text: text.replace(/\0/g, '') },
    { how: 'reversed', text: [...text].reverse().join('') },
    { how: 'rot13', text: rot13(text) },
    { how: 'percent-decoded', text: text.replace(/%([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16))) },
    {
      how: 'JSON-unescaped',
      text: text.replace(/\\u([0-9a-fA-F]{4})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16))).replace(/\0/g, ''),
    },
  ];
  for (const stride of [2, 3, 4]) {
    for (let phase = 0; phase < stride; phase++) {
      let decimated = '';
      for (let i = phase; i < text.length; i += stride) decimated += text[i];
      out.push({ how: `every ${stride}th character`, text: decimated });
    }
  }
  return out;
}

/** A short description of the first piece of `secret` that `text` still holds, or null when it holds none. */
export function encodedLeak(text: string, secret: string): string | null {
  const bytes = Buffer.from(secret);
  const hex = bytes.toString('hex');
  // `od -x` prints little-endian words: the secret's bytes pairwise reversed, at either alignment.
  const swapped = [0, 1].map((pad) => {
    const b = Buffer.concat([Buffer.alloc(pad), bytes, Buffer.alloc((pad + bytes.length) % 2)]);
    return Buffer.from(b).swap16().toString('hex').slice(4, -4);
  });
  for (const { how, text: decoded } of decodedTexts(text)) {
    for (const p of pieces(secret, 6)) if (decoded.includes(p)) return `${how} ${JSON.stringify(p)}`;
  }
  const digits = text.toLowerCase().replace(/[^0-9a-f]/g, '');
  for (const h of [hex, ...swapped]) for (const p of pieces(h, 12)) if (digits.includes(p)) return `hex ${p}`;
  const joined = text.replace(/\s+/g, '');
  for (const offset of ['', 'A', 'AB']) {
    const padded = Buffer.from(offset + secret);
    for (const b of [padded.toString('base64'), padded.toString('base64url')])
      for (const p of pieces(b.slice(offset.length + 2, -2), 8)) if (joined.includes(p)) return `base64 ${p}`;
  }
  const upper = joined.toUpperCase();
  for (const offset of ['', 'A', 'AB', 'ABC', 'ABCD']) {
    const encoded = base32(Buffer.from(offset + secret));
    for (const p of pieces(encoded.slice(Math.ceil((offset.length * 8) / 5) + 1, -2), 8)) if (upper.includes(p)) return `base32 ${p}`;
  }
  return null;
}

// git's base85 (base85.c) and binary hunks (diff.c: emit_binary_diff_body): `literal <n>` or `delta <n>`,
// then lines of a length character and base85 of zlib-deflated data, ended by a blank line.
const BASE85 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~';
function base85Line(line: string): Buffer {
  const c = line.charCodeAt(0);
  const length = c <= 90 ? c - 64 : c - 96 + 26;
  const out: number[] = [];
  for (let i = 1; i + 5 <= line.length; i += 5) {
    let value = 0;
    for (const ch of line.slice(i, i + 5)) value = value * 85 + BASE85.indexOf(ch);
    out.push((value >>> 24) & 255, (value >>> 16) & 255, (value >>> 8) & 255, value & 255);
  }
  return Buffer.from(out.slice(0, length));
}

/** The inflated data of every binary hunk of a git patch (what `git apply` would write, or the delta that makes it). */
export function binaryHunks(patch: string): Buffer[] {
  const out: Buffer[] = [];
  const lines = patch.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!/^(literal|delta) \d+$/.test(lines[i]!)) continue;
    const chunks: Buffer[] = [];
    for (i++; i < lines.length && lines[i] !== ''; i++) chunks.push(base85Line(lines[i]!));
    try {
      out.push(inflateSync(Buffer.concat(chunks)));
    } catch {
      out.push(Buffer.concat(chunks));
    }
  }
  return out;
}

/** Every stored form of `dir` (see the file's header), each with where it came from. */
export function storedForms(dir: string): { file: string; bytes: Buffer }[] {
  const out: { file: string; bytes: Buffer }[] = [];
  const names: string[] = [];
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const file = path.join(dir, name);
    names.push(name);
    const info = lstatSync(file);
    if (info.isSymbolicLink()) names.push(`${name} -> ${readlinkSync(file)}`);
    if (!info.isFile()) continue;
    const bytes = readFileSync(file);
    out.push({ file, bytes });
    if (name.endsWith('.gz')) out.push({ file: `${file} (unpacked)`, bytes: gunzipSync(bytes) });
    if (name.endsWith('.patch'))
      binaryHunks(bytes.toString('latin1')).forEach((h, i) => out.push({ file: `${file} (binary hunk ${i + 1})`, bytes: h }));
  }
  out.push({ file: `${dir} (names and link targets)`, bytes: Buffer.from(names.join('\n')) });
  return out;
}

/** Every file under `dir` (symlinks not followed) whose content holds `needle`. */
export function filesHolding(dir: string, needle: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (entry.isFile() && readFileSync(p).includes(needle)) found.push(path.relative(dir, p));
    }
  };
  walk(dir);
  return found;
}
