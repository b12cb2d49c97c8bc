// Secrets encoded over several lines, which a line-by-line match never sees whole: base64 wrapped at a
// fixed width (`base64` wraps at 76 columns, `openssl base64` at 64), hex dumps (`xxd`, `hexdump -C`,
// `od -t x1`, `od -x`, `xxd -p`) whose bytes and ASCII column run on from line to line, and hex with a
// separator between bytes on one line (`4c 54 5f`, `4c:54:5f`). The app is the agent's code and may print
// Elenchos's credentials so; each line is judged with the lines before it, as it arrives,
// so the terminal (which prints a line at once) and the stored logs hide the same.

/** A part of a line to hide: `[start, end)`. */
export interface Span {
  start: number;
  end: number;
}

// A piece this long at the end of a run of encoded text that starts a secret's encoding is hidden before
// the next line shows whether the rest follows: shorter, it would hide ordinary words; a secret loses at
// most this many characters minus one of its encoding at each break.
const MIN_PIECE = 3;
const MIN_HEX_PIECE = 6;
// A line's last base64 word must be this long to be taken for the start of a wrapped block.
const MIN_WRAPPED = 16;
const EQUALS = 61;
const isHex = (code: number) => (code >= 48 && code <= 57) || (code >= 65 && code <= 70) || (code >= 97 && code <= 102);
// Both alphabets (`+/` and `-_`), by character code: this runs on every character of every stored line.
const BASE64_CODES = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_') BASE64_CODES[c.charCodeAt(0)] = 1;
const isBase64 = (code: number) => code < 128 && BASE64_CODES[code] === 1;

/** Hides secrets that a wrapped or dumped encoding spreads over lines; holds the run of encoded text so far. */
export class WrappedSecrets {
  private base64Chain = '';
  private hexChains: [string, string] = ['', ''];
  private asciiChain = '';
  private readonly maxCore: number;
  private readonly maxHex: number;
  private readonly maxPlain: number;
  private readonly values: string[];
  private readonly hexes: string[];

  /**
   * `cores`: each secret's base64 (both alphabets, every offset); `values`: the secrets; `latin1`: the lines
   * are read one character per byte (files), so an ASCII column shows a secret's UTF-8 bytes that way.
   */
  constructor(
    private readonly cores: readonly string[],
    values: readonly string[],
    latin1 = false,
  ) {
    this.values = values.map((v) => (latin1 ? Buffer.from(v).toString('latin1') : v));
    this.hexes = values.map((v) => Buffer.from(v).toString('hex'));
    this.maxCore = Math.max(0, ...cores.map((c) => c.length));
    this.maxHex = Math.max(0, ...this.hexes.map((h) => h.length));
    this.maxPlain = Math.max(0, ...this.values.map((v) => v.length));
  }

  /** The spans of `line` to hide, judged with the lines before it; then remembers `line` for the next one. */
  spans(line: string): Span[] {
    const body = line.replace(/\r$/, '');
    const spans = [...this.base64Spans(body), ...this.dumpSpans(body)];
    for (const [from, to] of spacedHexRuns(body)) {
      // The run's digits, each with its column: a secret's hex found among them hides the columns it covers.
      let digits = '';
      const columns: number[] = [];
      for (let i = from; i < to; i++) {
        if (!isHex(body.charCodeAt(i))) continue;
        digits += body[i]!.toLowerCase();
        columns.push(i);
      }
      for (const s of found(digits, this.hexes, 0)) spans.push({ start: columns[s.start]!, end: columns[s.end - 1]! + 1 });
    }
    return merge(spans);
  }

  private base64Spans(body: string): Span[] {
    const spans: Span[] = [];
    let head = 0;
    while (head < body.length && isBase64(body.charCodeAt(head))) head++;
    const padded = body.slice(head).replace(/=+$/, '') === '' && head > 0;
    // A line that is all base64 continues the run of the lines before it; any other starts its own with its last word.
    let start = body.length;
    while (start > 0 && (isBase64(body.charCodeAt(start - 1)) || body.charCodeAt(start - 1) === EQUALS)) start--;
    const word = body.slice(start).replace(/=+$/, '');
    const chain = padded ? this.base64Chain + body.slice(0, head) : word;
    const offset = padded ? -this.base64Chain.length : start; // where chain[0] is in the line
    if (!padded && this.base64Chain && head > 0)
      spans.push(...found(this.base64Chain + body.slice(0, head), this.cores, -this.base64Chain.length));
    spans.push(...found(chain, this.cores, offset));
    if (chain.length >= MIN_WRAPPED) spans.push(...openEnd(chain, this.cores, offset, MIN_PIECE, this.maxCore));
    // Padding ends a base64 text; so does a line that does not end in one.
    this.base64Chain = body.endsWith('=') ? '' : chain.slice(-Math.max(0, this.maxCore - 1));
    return clip(spans, body.length);
  }

  private dumpSpans(body: string): Span[] {
    const dump = parseDump(body);
    if (!dump) {
      this.hexChains = ['', ''];
      this.asciiChain = '';
      return [];
    }
    const spans: Span[] = [];
    dump.streams.forEach((stream, i) => {
      const before = this.hexChains[i]!;
      const chain = before + stream.digits;
      const at = (index: number) => stream.map[index - before.length];
      for (const s of [...found(chain, this.hexes, 0), ...openEnd(chain, this.hexes, 0, MIN_HEX_PIECE, this.maxHex)]) {
        for (let d = Math.max(s.start, before.length); d < s.end; d++) spans.push({ start: at(d)!, end: at(d)! + 1 });
      }
      this.hexChains[i] = chain.slice(-Math.max(0, this.maxHex - 1));
    });
    if (dump.streams.length === 1) this.hexChains[1] = '';
    if (dump.ascii) {
      const chain = this.asciiChain + dump.ascii.text;
      const offset = dump.ascii.start - this.asciiChain.length;
      spans.push(...found(chain, this.values, offset), ...openEnd(chain, this.values, offset, MIN_PIECE, this.maxPlain));
      this.asciiChain = chain.slice(-Math.max(0, this.maxPlain - 1));
    } else this.asciiChain = '';
    return clip(spans, body.length);
  }
}

interface Dump {
  /** The bytes as hex digits, as printed and (for `od -x` words) each word's bytes reversed, with each digit's column. */
  streams: { digits: string; map: number[] }[];
  ascii: { text: string; start: number } | null;
}

// `xxd`: `00000000: 4c54 5f41  LT_A`; `hexdump -C`: `00000000  4c 54 5f 41  |LT_A|`; `od`: `0000000 4c 54`
// or `0000000 544c 415f` (little-endian words), `-t x1z` adds `  >LT_A<`; `xxd -p` and `od -An`: bytes only.
// Group 1 holds the bytes, group 2 the ASCII column.
const DUMPS: readonly { pattern: RegExp; words: boolean }[] = [
  { pattern: /^[0-9a-fA-F]{6,16}:((?: [0-9a-fA-F]{2,16})+)(?: {2,}(.*))?$/d, words: false },
  { pattern: /^[0-9a-fA-F]{6,16}((?: {1,2}[0-9a-fA-F]{2})+) +\|(.*)\|$/d, words: false },
  { pattern: /^(?:[0-7]{7}|[0-9a-fA-F]{6,8})?((?: +[0-9a-fA-F]{2,8})+)(?: +>(.*)<)?$/d, words: true },
  { pattern: /^((?:[0-9a-fA-F]{2}){8,})()$/d, words: false },
];

function parseDump(body: string): Dump | null {
  for (const { pattern, words } of DUMPS) {
    const m = pattern.exec(body);
    if (!m?.indices?.[1]) continue;
    const groups = [...m[1]!.matchAll(/[0-9a-fA-F]+/g)];
    // od prints groups of one width: a line of mixed widths is prose that happens to look like hex.
    if (words && groups.some((g) => g[0].length !== groups[0]![0].length)) continue;
    const at = m.indices[1][0];
    const asIs = { digits: '', map: [] as number[] };
    const reversed = { digits: '', map: [] as number[] };
    for (const g of groups) {
      const digits = g[0].toLowerCase();
      const start = at + g.index;
      for (let i = 0; i < digits.length; i++) {
        asIs.digits += digits[i];
        asIs.map.push(start + i);
      }
      // A little-endian word prints its last byte first: read it back to front, a byte (two digits) at a time.
      for (let b = digits.length - 2; b >= 0; b -= 2) {
        reversed.digits += digits.slice(b, b + 2);
        reversed.map.push(start + b, start + b + 1);
      }
    }
    const wide = words && groups[0]![0].length > 2;
    const ascii = m[2] && m.indices[2] ? { text: m[2], start: m.indices[2][0] } : null;
    return { streams: wide ? [asIs, reversed] : [asIs], ascii };
  }
  return null;
}

// Space, tab, `:`, `,`, `.`, `-`.
const isSeparator = (code: number) => code === 32 || code === 9 || code === 58 || code === 44 || code === 46 || code === 45;

/**
 * The runs of four or more hex bytes with one to three separators between each (`4c 54 5f 41`, `4C:54:5F:41`),
 * found in one pass over the line by character code: a regular expression for this costs more than all the
 * rest of the line's redaction.
 */
function spacedHexRuns(s: string): [number, number][] {
  const runs: [number, number][] = [];
  const n = s.length;
  let i = 0;
  while (i < n) {
    if (!isHex(s.charCodeAt(i))) {
      i++;
      continue;
    }
    let end = i;
    let bytes = 0;
    for (let k = i; k + 1 < n && isHex(s.charCodeAt(k)) && isHex(s.charCodeAt(k + 1));) {
      bytes++;
      end = k + 2;
      let m = end;
      while (m < n && m - end < 3 && isSeparator(s.charCodeAt(m))) m++;
      if (m === end) break;
      k = m;
    }
    if (bytes >= 4) runs.push([i, end]);
    i = end > i ? end : i + 1;
  }
  return runs;
}

/** Every occurrence of any of `needles` in `chain`, as spans shifted by `offset` (chain[0] is at `offset`). */
function found(chain: string, needles: readonly string[], offset: number): Span[] {
  const spans: Span[] = [];
  for (const needle of needles) {
    if (needle.length === 0) continue;
    for (let i = chain.indexOf(needle); i >= 0; i = chain.indexOf(needle, i + 1))
      spans.push({ start: offset + i, end: offset + i + needle.length });
  }
  return spans;
}

/** The end of `chain` when it is the start of one of `needles` (at least `min` characters): the rest may follow on the next line. */
function openEnd(chain: string, needles: readonly string[], offset: number, min: number, max: number): Span[] {
  let longest = 0;
  for (const needle of needles) {
    // Only where the needle's first character is: few places, so a long secret costs little.
    for (let i = Math.max(0, chain.length - Math.min(max, needle.length) + 1); i <= chain.length - min; i++) {
      if (chain.charCodeAt(i) !== needle.charCodeAt(0) || !needle.startsWith(chain.slice(i))) continue;
      longest = Math.max(longest, chain.length - i);
      break;
    }
  }
  return longest >= min ? [{ start: offset + chain.length - longest, end: offset + chain.length }] : [];
}

function clip(spans: Span[], length: number): Span[] {
  return spans.map((s) => ({ start: Math.max(0, s.start), end: Math.min(length, s.end) })).filter((s) => s.end > s.start);
}

/** Overlapping or adjacent spans as one (so `4c 54` hidden byte by byte becomes one `[REDACTED]`). */
export function merge(spans: Span[]): Span[] {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  const out: Span[] = [];
  for (const s of sorted) {
    const last = out.at(-1);
    if (last && s.start <= last.end + 1) last.end = Math.max(last.end, s.end);
    else out.push({ ...s });
  }
  return out;
}
