// A line as it reads once decoded character by character: percent-encoding of any character (`%41` for
// `A`, either case of hex, mixed with plain characters, as `curl --data-urlencode` or a hand-made loop
// writes it) and JSON's escapes (`\uXXXX`: a NUL-separated secret, UTF-16 say, inside a JSON string). A
// secret found in the decoded text is hidden where its characters were in the line.
import type { Span } from './redact-wrapped.js';

/** A decoded line; `lineSpans` maps what is found in it back to the line. */
export interface View {
  text: string;
  /** Each escape sequence in the line. */
  escape: RegExp;
}

const PERCENT = /%[0-9A-Fa-f]{2}/g;
const JSON_ESCAPE = /\\(?:u[0-9A-Fa-f]{4}|["\\/bfnrt])/g;
const JSON_CHARS: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

function decodeEscape(sequence: string): string {
  if (sequence[0] === '%') return String.fromCharCode(Number.parseInt(sequence.slice(1), 16));
  if (sequence[1] === 'u') return String.fromCharCode(Number.parseInt(sequence.slice(2), 16));
  return JSON_CHARS[sequence[1]!]!;
}

/**
 * The decoded views of `line` worth a look (none for a line without `%XX` or `\u`: most lines). Only the
 * text is made here (one native replace); where each character came from is worked out only for a line
 * in which something was found.
 */
export function decodedViews(line: string): View[] {
  const views: View[] = [];
  if (line.includes('%')) {
    const text = line.replace(PERCENT, decodeEscape);
    if (text !== line) views.push({ text, escape: PERCENT });
  }
  if (line.includes('\\u')) views.push({ text: line.replace(JSON_ESCAPE, decodeEscape), escape: JSON_ESCAPE });
  return views;
}

/** `spans` of `view` (decoded from `line`), as spans of the line. */
export function lineSpans(line: string, view: View, spans: readonly Span[]): Span[] {
  if (spans.length === 0) return [];
  // starts[i]: where the view's character i begins in the line; starts[text.length]: the line's end.
  const starts: number[] = [];
  let at = 0;
  const escape = new RegExp(view.escape.source, 'g');
  for (let m = escape.exec(line); m; m = escape.exec(line)) {
    for (; at < m.index; at++) starts.push(at);
    starts.push(m.index);
    at = m.index + m[0].length;
  }
  for (; at < line.length; at++) starts.push(at);
  starts.push(line.length);
  return spans.filter((s) => s.end > s.start).map((s) => ({ start: starts[s.start]!, end: starts[s.end]! }));
}
