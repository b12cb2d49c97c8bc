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
