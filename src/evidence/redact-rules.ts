// The patterns that find secrets in text, and a line scanner that carries a PEM block across lines.
import type { FormMatcher } from './redact-matcher.js';
import { separatedSpans, type SeparatedSecrets } from './redact-separated.js';
import { decodedViews, lineSpans } from './redact-views.js';
import { merge, type Span, type WrappedSecrets } from './redact-wrapped.js';

export const REDACTED = '[REDACTED]';

interface Rule {
  kind: string;
  pattern: RegExp;
  replace: string;
}

/** Well-known token formats; each becomes `[REDACTED:<kind>]` so a reader knows what was there. */
export const TOKEN_RULES: readonly Rule[] = [
  { kind: 'github-token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})/g, replace: '[REDACTED:github-token]' },
  { kind: 'aws-access-key', pattern: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g, replace: '[REDACTED:aws-access-key]' },
  { kind: 'slack-token', pattern: /\bxox[abpr]-[A-Za-z0-9-]{10,}/g, replace: '[REDACTED:slack-token]' },
  { kind: 'anthropic-key', pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g, replace: '[REDACTED:anthropic-key]' },
  { kind: 'openai-key', pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g, replace: '[REDACTED:openai-key]' },
  { kind: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, replace: '[REDACTED:jwt]' },
  // Keep the scheme word so a log still says what kind of header it was.
  { kind: 'bearer-token', pattern: /\b(Bearer\s+)[A-Za-z0-9\-._~+/]{12,}=*/gi, replace: '$1[REDACTED:bearer-token]' },
  // Kane's credentials on a command line: `--access-key v`, `--access-key=v`, and JSON argv arrays.
  { kind: 'access-key', pattern: /(--access-key(?:=|\s+))(?:"[^"]*"|'[^']*'|[^\s"'\\]+)/g, replace: `$1${REDACTED}` },
  { kind: 'access-key', pattern: /(--access-key\\?"\s*,\s*\\?")(?:[^"\\]|\\[^"])*/g, replace: `$1${REDACTED}` },
];

const PEM_LINE = /-----BEGIN ([A-Z0-9 ]+ )?PRIVATE KEY-----[\s\S]*?-----END ([A-Z0-9 ]+ )?PRIVATE KEY-----/g;
const PEM_BEGIN = /-----BEGIN ([A-Z0-9 ]+ )?PRIVATE KEY-----/;
const PEM_END = /-----END ([A-Z0-9 ]+ )?PRIVATE KEY-----/;
// Inside a PEM block only base64 and `Key: value` headers appear; anything else means the block
// was cut short, and the scanner must not swallow the rest of the file.
const PEM_BODY = /^\s*([A-Za-z0-9+/=]*|[A-Za-z-]+:.*)\s*\r?$/;
const PRIVATE_KEY = '[REDACTED:private-key]';

/** The secrets a line is also searched for spelled out (redact-separated.ts) and inside its decoded views (redact-views.ts). */
export interface SpelledSecrets {
  /** The stream's scanner: its state carries from line to line. */
  separated: SeparatedSecrets;
  /** The secrets it looks for, for a one-off scan (a decoded view, a cut). */
  secrets: readonly string[];
}

/** Redacts one line at a time; holds the state of a private key block spanning lines. */
export class LineRedactor {
  private inKey = false;
  /** Number of replacements made so far. */
  count = 0;

  /**
   * `wrapped`: secrets encoded over several lines (redact-wrapped.ts), judged with the lines before;
   * `spelled`: secrets with separators between their characters, or escaped character by character.
   */
  constructor(
    private readonly values: FormMatcher | null,
    private readonly wrapped: WrappedSecrets | null = null,
    private readonly spelled: SpelledSecrets | null = null,
  ) {}

  /**
   * Returns the redacted line, or null when the whole line belongs to a removed key block. `lineEnd`:
   * a line break follows (false for a piece of a line too long to hold, see cutPoint).
   */
  line(input: string, lineEnd = true): string | null {
    const spans = this.wrapped ? this.wrapped.spans(input) : [];
    if (this.spelled) spans.push(...this.spelled.separated.feed(input, lineEnd), ...this.viewSpans(input));
    let text = spans.length > 0 ? this.hideSpans(input, merge(spans)) : input;
    if (this.inKey) {
      const end = PEM_END.exec(text);
      if (end) {
        this.inKey = false;
        text = text.slice(end.index + end[0].length);
        if (text.trim() === '') return null;
      } else if (PEM_BODY.test(text)) {
        return null;
      } else {
        this.inKey = false;
      }
    }
    text = this.replace(text, PEM_LINE, PRIVATE_KEY);
    const begin = PEM_BEGIN.exec(text);
    if (begin) {
      // A block that does not end on this line: drop the rest of it and the lines that follow.
      this.inKey = true;
      this.count++;
      text = text.slice(0, begin.index) + PRIVATE_KEY;
    }
    if (this.values) text = this.hideSpans(text, this.values.spans(text));
    for (const rule of TOKEN_RULES) text = this.replace(text, rule.pattern, rule.replace);
    return text;
  }

  /**
   * Where a line too long to hold whole may be cut without splitting a secret: `hold` characters before its
   * end (they may be the start of a secret that ends in text not read yet), moved back to the start of any
   * secret, token or key marker found across that point, until none is. Scanned apart, the two pieces hide
   * all the whole line would; at most a token starting right at the cut is found that the whole line would
   * not have (a `\b` at the cut), which hides more, never less.
   */
  cutPoint(text: string, hold: number): number {
    // A key block's own markers are enough: a cut between them leaves the first piece in the block and the
    // second one ending it, as lines of a block do.
    const patterns = [PEM_BEGIN, PEM_END, ...TOKEN_RULES.map((r) => r.pattern)];
    // A global copy of each pattern, so the shared patterns' lastIndex neither matters nor changes.
    const spans = patterns.flatMap((p) =>
      [...text.matchAll(new RegExp(p, 'g'))].map((m): [number, number] => [m.index, m.index + m[0].length]),
    );
    for (const s of this.values?.spans(text) ?? []) spans.push([s.start, s.end]);
    if (this.spelled) {
      for (const s of [...separatedSpans(text, this.spelled.secrets), ...this.viewSpans(text)]) spans.push([s.start, s.end]);
    }
    let cut = Math.max(0, text.length - hold);
    let moved = true;
    while (moved) {
      moved = false;
      for (const [start, end] of spans) {
        if (start < cut && end > cut) {
          cut = start;
          moved = true;
        }
      }
    }
    return cut;
  }

  /** Secrets found in the line once decoded (percent-encoded or JSON-escaped characters), where they are in the line. */
  private viewSpans(line: string): Span[] {
    const spans: Span[] = [];
    for (const view of decodedViews(line)) {
      const found = separatedSpans(view.text, this.spelled!.secrets);
      if (this.values) found.push(...this.values.spans(view.text));
      spans.push(...lineSpans(line, view, found));
    }
    return spans;
  }

  /** `text` with each of `spans` (sorted, apart) replaced by REDACTED, in one pass: a 1 MB piece may hold thousands. */
  private hideSpans(text: string, spans: readonly Span[]): string {
    if (spans.length === 0) return text;
    const parts: string[] = [];
    let at = 0;
    for (const span of spans) {
      parts.push(text.slice(at, span.start), REDACTED);
      at = span.end;
      this.count++;
    }
    parts.push(text.slice(at));
    return parts.join('');
  }

  private replace(text: string, pattern: RegExp, replacement: string): string {
    pattern.lastIndex = 0;
    if (!pattern.test(text)) return text;
    pattern.lastIndex = 0;
    return text.replace(pattern, (...args: unknown[]) => {
      this.count++;
      // `$1` is the only back-reference the rules use.
      return replacement.replace('$1', typeof args[1] === 'string' ? args[1] : '');
    });
  }
}
