// A secret spelled with something between its characters: one separator (`sed 's/./& /g'` spaces it,
// `sed 's/./&\n/g'` or `fold -w1` puts each character on a line of its own, a NUL between each is how
// UTF-16 spells an ASCII secret) or two (`\r\n`, `, `). Any characters may separate, and they need not
// be the same: the secret's own characters at a fixed stride are what is looked for.
//
// One scan per text: a native search jumps to each place that holds a secret's rarest character, and only
// there is the stride checked, both ways, at most as far as the characters keep matching. A secret whose
// separators include the line break (`fold -w1`: one character a line) is followed from line to line: a
// match left open at a line's end is carried over, and once it crossed a line break and holds MIN_PIECE
// characters or more, its part in each line is hidden at once (the next line is printed before it can
// tell), so at most MIN_PIECE - 1 characters of a secret reach the terminal that way, and never the secret.
import type { Span } from './redact-wrapped.js';

/** Characters of a stride: the secret's character, then 1 or 2 separators. */
export const STRIDES: readonly number[] = [2, 3];
const MIN_PIECE = 3;

interface Open {
  /** Index into the secrets. */
  secret: number;
  stride: number;
  /** Characters matched so far. */
  matched: number;
  /** Stream position of the secret's first character. */
  start: number;
  /** Stream position of the first line break inside it, or -1. */
  broken: number;
}

/** Finds separated secrets in a stream of texts (lines, or pieces of one), as they come. */
export class SeparatedSecrets {
  /** Per secret, the character searched for inside a text (its rarest) and where it sits in the secret. */
  private readonly anchors: { char: string; at: number }[];
  /** First character → the secrets starting with it: looked for only where a secret may go on in the next line. */
  private readonly byFirst = new Map<string, number[]>();
  private open: Open[] = [];
  /** Stream position of the next character. */
  private position = 0;

  /** `secrets`: in the form the texts hold them (latin1 strings of their bytes for files). */
  constructor(private readonly secrets: readonly string[]) {
    secrets.forEach((secret, i) => this.byFirst.set(secret[0]!, [...(this.byFirst.get(secret[0]!) ?? []), i]));
    this.anchors = secrets.map((secret) => {
      let at = 0;
      for (let i = 1; i < secret.length; i++) if (commonness(secret.charCodeAt(i)) < commonness(secret.charCodeAt(at))) at = i;
      return { char: secret[at]!, at };
    });
  }

  /** The longest stretch one separated secret can take: what a cut must keep back. */
  get longest(): number {
    return Math.max(0, ...this.secrets.map((s) => (s.length - 1) * STRIDES.at(-1)! + 1));
  }

  /**
   * The spans of `text` (the stream's next part) to hide: separated secrets that end in it, and, when
   * `lineEnd` (a line break follows), one still open that crossed a line break with MIN_PIECE
   * characters or more. Spans are relative to `text`, clipped to it.
   */
  feed(text: string, lineEnd: boolean): Span[] {
    const base = this.position;
    const spans: Span[] = [];
    const open: Open[] = [];
    const follow = (o: Open) => {
      const secret = this.secrets[o.secret]!;
      let at = o.start + o.matched * o.stride - base;
      while (o.matched < secret.length && at < text.length && text.charCodeAt(at) === secret.charCodeAt(o.matched)) {
        o.matched++;
        at += o.stride;
      }
      if (o.matched === secret.length) spans.push({ start: Math.max(0, o.start - base), end: at - o.stride + 1 });
      else if (at >= text.length) open.push(o); // the text ended before the secret could: it may go on
    };
    for (const o of this.open) follow(o);
    // A secret wholly inside the text holds its rarest character: a native search for that character (a
    // capital or a digit is rarer in a log than a secret's first letter), then the stride checked both ways.
    this.secrets.forEach((secret, index) => {
      const { char, at: offset } = this.anchors[index]!;
      const span = secret.length - 1;
      for (let at = text.indexOf(char); at >= 0; at = text.indexOf(char, at + 1)) {
        for (let k = 0; k < STRIDES.length; k++) {
          const stride = STRIDES[k]!;
          const start = at - offset * stride;
          if (start < 0 || start + span * stride >= text.length) continue; // not wholly inside: see below
          let j = 0;
          while (j < secret.length && text.charCodeAt(start + j * stride) === secret.charCodeAt(j)) j++;
          if (j === secret.length) spans.push({ start, end: start + span * stride + 1 });
        }
      }
    });
    // One that goes on in the next line has a line break among its separators: its first character is
    // one of the last characters of this line (`fold -w1` leaves it last, `\r\n` one before). Only there is
    // one started that may stay open; a piece of a long line is cut where no secret crosses (cutPoint).
    if (lineEnd) {
      for (const [char, indexes] of this.byFirst) {
        for (let at = Math.max(0, text.length - (STRIDES.at(-1)! - 1)); at < text.length; at++) {
          if (text[at] !== char) continue;
          for (const secret of indexes) {
            for (const stride of STRIDES) {
              if (at + (this.secrets[secret]!.length - 1) * stride < text.length) continue; // wholly inside: found above
              follow({ secret, stride, matched: 1, start: base + at, broken: -1 });
            }
          }
        }
      }
    }
    this.position = base + text.length;
    this.open = open;
    if (lineEnd) {
      for (const o of open) {
        if (o.broken >= 0 && o.matched >= MIN_PIECE) {
          const last = o.start + (o.matched - 1) * o.stride - base;
          spans.push({ start: Math.max(0, o.start - base), end: Math.min(text.length, last + 1) });
        }
      }
      this.lineBreak();
    }
    return spans.filter((s) => s.end > s.start);
  }

  /** The line break after a text: a character of the stream like any other (a secret never holds one). */
  private lineBreak(): void {
    const at = this.position;
    this.open = this.open.filter((o) => {
      if (o.start + o.matched * o.stride !== at) return true; // the break falls between two of its characters
      return false; // the break is where its next character should be
    });
    for (const o of this.open) if (o.broken < 0) o.broken = at;
    this.position = at + 1;
  }
}

/** Separated secrets found wholly inside `text` (no stream before or after): for names, decoded views and cuts. */
export function separatedSpans(text: string, secrets: readonly string[]): Span[] {
  return new SeparatedSecrets(secrets).feed(text, false);
}

/** How often a character turns up in logs, roughly: the lower, the fewer places a search for it stops at. */
function commonness(code: number): number {
  if (code === 32 || code === 101 || code === 116) return 9; // space, e, t
  if (code >= 97 && code <= 122) return 6; // other lower-case letters
  if (code === 34 || code === 46 || code === 47 || code === 58 || code === 44 || code === 45 || code === 95) return 5; // " . / : , - _
  if (code >= 48 && code <= 57) return 3; // digits
  if (code >= 65 && code <= 90) return 2; // capitals
  return 1; // anything else: rarer still
}
