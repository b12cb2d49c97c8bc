// A secret spelled with something between its characters: one separator (`sed 's/./& /g'` spaces it,
// `sed 's/./&\n/g'` or `fold -w1` puts each character on a line of its own, a NUL between each is how
// UTF-16 spells an ASCII secret) or two (`\r\n`, `, `). Any characters may separate, and they need not
// be the same: the secret's own characters at a fixed stride are what is looked for.
//
// One scan per text: a native search jumps to each character that starts a secret, and only there is
// the stride followed, at most as far as the characters keep matching. A match left open at the end of a
// text (the stream goes on in the next line) is carried over, so a secret spread one character per line
// is found too; at a line's end, a match that already crossed a line break and holds MIN_PIECE characters
// or more is hidden at once (the next line is printed before it can tell), so at most MIN_PIECE - 1
// characters of a secret reach the terminal that way, and never the secret.
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
  /** First character → the secrets starting with it. */
  private readonly byFirst = new Map<string, number[]>();
  private readonly seconds: number[];
  private open: Open[] = [];
  /** Stream position of the next character. */
  private position = 0;

  /** `secrets`: in the form the texts hold them (latin1 strings of their bytes for files). */
  constructor(private readonly secrets: readonly string[]) {
    secrets.forEach((secret, i) => this.byFirst.set(secret[0]!, [...(this.byFirst.get(secret[0]!) ?? []), i]));
    this.seconds = secrets.map((secret) => secret.charCodeAt(1));
  }

  /** The longest stretch one separated secret can take: what a cut must keep back. */
  get longest(): number {
    return Math.max(0, ...this.secrets.map((s) => (s.length - 1) * STRIDES.at(-1)! + 1));
  }

  /**
   * The spans of `text` (the stream's next part) to hide: separated secrets that end in it, and, when
   * `lineEnd` (a line break follows), one still open that crossed a line break with MIN_PIECE
   * characters or more. Spans are relative to `text`, clipped to it unless `clip` is false (then a
   * secret that began in an earlier text starts before 0).
   */
  feed(text: string, lineEnd: boolean, clip = true): Span[] {
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
      if (o.matched === secret.length) spans.push({ start: clip ? Math.max(0, o.start - base) : o.start - base, end: at - o.stride + 1 });
      else if (at >= text.length) open.push(o); // the text ended before the secret could: it may go on
    };
    for (const o of this.open) follow(o);
    // A native search for each first character, then the stride followed only where one is. Plain loops:
    // this runs for every common letter a secret may start with.
    for (const [char, secrets] of this.byFirst) {
      for (let at = text.indexOf(char); at >= 0; at = text.indexOf(char, at + 1)) {
        for (let i = 0; i < secrets.length; i++) {
          const secret = secrets[i]!;
          const second = this.seconds[secret]!;
          for (let k = 0; k < STRIDES.length; k++) {
            const stride = STRIDES[k]!;
            // Nearly every start fails on its second character: checked before anything is made for it.
            if (at + stride < text.length && text.charCodeAt(at + stride) !== second) continue;
            follow({ secret, stride, matched: 1, start: base + at, broken: -1 });
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
    return spans.filter((s) => s.end > Math.max(0, s.start) || !clip);
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
