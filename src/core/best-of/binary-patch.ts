// The size of the file a hunk of a `git diff --binary` patch produces. A `literal <n>` hunk holds the
// whole file (n is its size); a `delta <n>` hunk holds a delta whose own size is n, and the size of the
// file it makes is in the delta's header. Format: git's diff.c (emit_binary_diff_body) and base85.c.
import { inflateSync } from 'node:zlib';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~';
const DIGIT = new Map([...ALPHABET].map((ch, i) => [ch, i]));

/** One line of git's base85: a length character (A–Z 1–26, a–z 27–52 bytes), then 5 characters per 4 bytes. */
function decodeLine(line: string): Buffer | null {
  const first = line.charCodeAt(0);
  const length = first >= 65 && first <= 90 ? first - 64 : first >= 97 && first <= 122 ? first - 96 + 26 : 0;
  const body = line.slice(1);
  if (length === 0 || body.length % 5 !== 0 || body.length / 5 < Math.ceil(length / 4)) return null;
  const out = Buffer.alloc((body.length / 5) * 4);
  for (let i = 0; i < body.length; i += 5) {
    let value = 0;
    for (const ch of body.slice(i, i + 5)) {
      const digit = DIGIT.get(ch);
      if (digit === undefined) return null;
      value = value * 85 + digit;
    }
    if (value > 0xffffffff) return null;
    out.writeUInt32BE(value, (i / 5) * 4);
  }
  return out.subarray(0, length);
}

/** A delta starts with two varints (7 bits a byte, low first, the top bit says more follow): source size, target size. */
function targetSize(delta: Buffer): number | null {
  let at = 0;
  const varint = (): number | null => {
    let value = 0;
    let shift = 0;
    for (;;) {
      if (at >= delta.length || shift > 49) return null;
      const byte = delta[at++]!;
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
      if ((byte & 0x80) === 0) return value;
    }
  };
  return varint() === null ? null : varint();
}

/** The size of the file the hunk produces; for a delta, null when its data cannot be read. */
export function hunkResultSize(kind: 'literal' | 'delta', size: number, lines: readonly string[]): number | null {
  if (kind === 'literal') return size;
  const parts: Buffer[] = [];
  for (const line of lines) {
    const part = decodeLine(line);
    if (!part) return null;
    parts.push(part);
  }
  try {
    return targetSize(inflateSync(Buffer.concat(parts)));
  } catch {
    return null;
  }
}
