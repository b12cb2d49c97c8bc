// Reads NDJSON one line at a time: never crashes on a bad line, counts it and keeps a few samples.

export interface NdjsonStats {
  /** Every line seen, good or bad. */
  lines: number;
  /** Lines that parsed to a JSON object. */
  events: number;
  blank: number;
  /** Non-blank lines that are not a JSON object (banners, truncated writes, arrays, numbers). */
  invalid: number;
  /** The first few invalid lines, shortened, so a person can see what the producer printed. */
  samples: string[];
  /** Lines cut at MAX_LINE_LENGTH (counted in `invalid` too): a producer that prints such a line is not to be trusted. */
  overlong: number;
}

export type NdjsonObject = Record<string, unknown>;

const OPEN_BRACE = 0x7b;
const MAX_SAMPLES = 5;
const SAMPLE_LENGTH = 200;
/**
 * Longest line kept, in characters; the rest of a longer line is dropped as it streams in, so one
 * 50 MB line without a newline costs 4 MiB of memory, not gigabytes. A line cut here reaches the
 * consumer exactly this long, which is how NdjsonReader tells it was cut.
 */
export const MAX_LINE_LENGTH = 4 * 1024 * 1024;

/** Parses lines into objects; anything else is counted and skipped. */
export class NdjsonReader {
  readonly stats: NdjsonStats = { lines: 0, events: 0, blank: 0, invalid: 0, samples: [], overlong: 0 };

  /** The line's object, or null for a blank or non-object line (counted either way). */
  read(line: string): NdjsonObject | null {
    this.stats.lines++;
    if (line.length >= MAX_LINE_LENGTH) {
      this.stats.overlong++;
      return this.reject(line);
    }
    // Fast path: producers write `{...}` with no indentation, so most lines need no trim.
    if (line.charCodeAt(0) !== OPEN_BRACE) {
      const trimmed = line.trim();
      if (trimmed === '') {
        this.stats.blank++;
        return null;
      }
      if (trimmed.charCodeAt(0) !== OPEN_BRACE) return this.reject(line);
    }
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return this.reject(line);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return this.reject(line);
    this.stats.events++;
    return value as NdjsonObject;
  }

  /** Blank plus invalid lines: what a consumer skipped. */
  get skipped(): number {
    return this.stats.blank + this.stats.invalid;
  }

  private reject(line: string): null {
    this.stats.invalid++;
    if (this.stats.samples.length < MAX_SAMPLES) {
      this.stats.samples.push(line.length > SAMPLE_LENGTH ? `${line.slice(0, SAMPLE_LENGTH)}…` : line);
    }
    return null;
  }
}

/** Cuts a stream of text chunks into lines (without the newline or a trailing CR), each at most `maxLength` long. */
export class LineSplitter {
  private partial = '';
  /** Inside a line that was already cut and delivered: drop everything up to its newline. */
  private skipping = false;

  constructor(private readonly maxLength = MAX_LINE_LENGTH) {}

  /** Calls `onLine` for every complete line in `chunk`, and once for a line as soon as it passes `maxLength`. */
  push(chunk: string, onLine: (line: string) => void): void {
    let start = 0;
    for (let newline = chunk.indexOf('\n'); newline >= 0; newline = chunk.indexOf('\n', start)) {
      if (this.skipping) this.skipping = false;
      else this.deliver(this.partial + chunk.slice(start, newline), onLine);
      this.partial = '';
      start = newline + 1;
    }
    if (this.skipping) return;
    const rest = chunk.slice(start);
    if (this.partial.length + rest.length >= this.maxLength) {
      onLine((this.partial + rest.slice(0, this.maxLength)).slice(0, this.maxLength));
      this.partial = '';
      this.skipping = true;
    } else {
      this.partial += rest;
    }
  }

  /** Flushes a last line that had no newline. */
  end(onLine: (line: string) => void): void {
    if (!this.skipping && this.partial !== '') this.deliver(this.partial, onLine);
    this.partial = '';
    this.skipping = false;
  }

  private deliver(line: string, onLine: (line: string) => void): void {
    onLine(line.length >= this.maxLength ? line.slice(0, this.maxLength) : stripCr(line));
  }
}

function stripCr(line: string): string {
  return line.charCodeAt(line.length - 1) === 0x0d ? line.slice(0, -1) : line;
}
