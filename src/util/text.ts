// Small text helpers for messages.

/** The last `n` non-empty lines of `text`, joined with `separator` (one line per log line by default). */
export function lastLines(text: string, n: number, separator = '\n'): string {
  return text
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '')
    .slice(-n)
    .join(separator);
}

/** `text` cut to at most `maxBytes` of UTF-8 (never inside a character), saying how much was cut. */
export function capBytes(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  // Decoding a cut multi-byte sequence yields U+FFFD; drop it rather than show it.
  const kept = bytes
    .subarray(0, maxBytes)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return `${kept}\n[… ${bytes.length - Buffer.byteLength(kept, 'utf8')} more bytes cut]`;
}
